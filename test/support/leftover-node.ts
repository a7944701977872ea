/**
 * After a test: SIGKILL the simulated node a failed test may have left running in `home`, named by its
 * addresses file. Only when that pid is still this home's node: a node that ended leaves the file
 * behind (SIGKILL, a halt), and on a machine whose pid_max is 32768 a suite forking thousands of
 * processes hands a dead node's pid to another process within minutes — a test running beside this
 * one, which a blind kill would end.
 */
import fs from 'node:fs/promises';

import { readAddresses } from '@chainvisor/simd';

import { readProcessEnv } from '../../src/shared/proc/index.js';

export async function killLeftoverNode(home: string): Promise<void> {
  const node = await readAddresses(home).catch(() => undefined);
  if (node === undefined || !(await isNodeOf(node.pid, home))) return;
  try {
    process.kill(node.pid, 'SIGKILL');
  } catch {
    // ended in the meantime
  }
}

/** Whether `pid` runs with this home: DAEMON_HOME in its environment (chainvisor's child) or the home on its command line. */
async function isNodeOf(pid: number, home: string): Promise<boolean> {
  if ((await readProcessEnv(pid))?.get('DAEMON_HOME') === home) return true;
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0').includes(home);
}
