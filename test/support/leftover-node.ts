/**
 * After a test: SIGKILL the simulated node a failed test may have left running in `home`, named by its
 * addresses file. Only when that pid is still this home's node: a node that ended leaves the file
 * behind (SIGKILL, a halt), and on a machine whose pid_max is 32768 a suite forking thousands of
 * processes hands a dead node's pid to another process within minutes — a test running beside this
 * one, which a blind kill would end.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

import { readAddresses } from '@chainvisor/simd';

import { readProcessEnv } from '../../src/shared/proc/index.js';

/**
 * After a test: asks a `chainvisor run` still running to stop (it stops its node), SIGKILL after 5 s,
 * then kills the node a killed run left behind.
 */
export async function stopRunAndNode(run: ChildProcess, exit: Promise<unknown>, exited: () => boolean, home: string): Promise<void> {
  if (!exited()) {
    run.kill('SIGTERM');
    await Promise.race([exit, sleep(5000, undefined, { ref: false })]);
  }
  if (!exited()) {
    run.kill('SIGKILL');
    await exit;
  }
  await killLeftoverNode(home);
}

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
