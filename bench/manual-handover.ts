/**
 * Manual-upgrade handover on the simulated chain: for each halt style of the node (exits, stays up),
 * a genesis node under `chainvisor run` with a manual upgrade queued at height H. Prints, per run, the
 * last height the old binary committed, the first the new one committed (exactness: H and H+1), and
 * the chain's pause: from block H's commit to block H+1's, read from the nodes' own log timestamps.
 * Backups are skipped; 50 ms blocks.
 *
 *   npm run bench:manual -- [--runs 3] [--height 40]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { buildVersions } from '@chainvisor/simd';
import { execa } from 'execa';

import { unusedPort } from '../test/support/ports.js';

const chainvisor = path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, height: { type: 'string', default: '40' } } });
const runs = Number(values.runs);
const height = Number(values.height);

interface Commit {
  version: string;
  at: number;
}

async function once(dir: string, bins: Record<string, string>, mode: 'exit' | 'stay', run: number) {
  const home = path.join(dir, `home-${mode}-${run}`);
  const env = { ...process.env, DAEMON_HOME: home, DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true', DAEMON_GRPC_ADDRESS: `127.0.0.1:${await unusedPort()}` };
  await execa(bins.genesis as string, ['init', 'bench', '--home', home]);
  await execa(process.execPath, [chainvisor, 'init', bins.genesis as string], { env });
  await execa(process.execPath, [chainvisor, 'add-upgrade', 'v2', bins.v2 as string, '--upgrade-height', String(height)], { env, reject: false });
  const flags = ['--block-time', '50ms', '--rpc.laddr', 'tcp://127.0.0.1:0', '--grpc.address', env.DAEMON_GRPC_ADDRESS, '--api.address', 'tcp://127.0.0.1:0'];
  const proc = spawn(process.execPath, [chainvisor, 'run', 'start', '--home', home, ...flags, ...(mode === 'stay' ? ['--halt-mode', 'stay'] : [])], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const commits = new Map<number, Commit>();
  let version = '?';
  let buffer = '';
  await new Promise<void>((resolve) => {
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const start = / starting node .*version=(\S+)/.exec(line);
        if (start) version = start[1] as string;
        const commit = /^(\S+) INF committed state .*height=(\d+)/.exec(line);
        if (commit) commits.set(Number(commit[2]), { version, at: Date.parse(commit[1] as string) });
        if (commit && Number(commit[2]) >= height + 3 && version === 'v2') resolve();
      }
    });
    setTimeout(resolve, 60_000).unref();
  });
  proc.kill('SIGTERM');
  await new Promise((resolve) => proc.on('exit', resolve));
  const lastOld = Math.max(...[...commits].filter(([, c]) => c.version === 'genesis').map(([h]) => h));
  const firstNew = Math.min(...[...commits].filter(([, c]) => c.version === 'v2').map(([h]) => h));
  const pause = (commits.get(height + 1)?.at ?? Number.NaN) - (commits.get(height)?.at ?? Number.NaN);
  return { lastOld, firstNew, pause };
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-manual-'));
try {
  const built = await buildVersions({ out: path.join(dir, 'versions'), versions: ['genesis', 'v2'] });
  const bins = { genesis: built.versions.genesis?.bin as string, v2: built.versions.v2?.bin as string };
  console.log(`manual upgrade at H=${height}, 50 ms blocks, ${runs} run(s) per halt style`);
  for (const mode of ['exit', 'stay'] as const) {
    const pauses: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await once(dir, bins, mode, i);
      pauses.push(r.pause);
      console.log(
        `  node ${mode === 'exit' ? 'exits' : 'stays up'}: old binary's last block ${r.lastOld}, new binary's first ${r.firstNew}, chain paused ${r.pause} ms`,
      );
    }
    const sorted = [...pauses].sort((a, b) => a - b);
    console.log(`  ${mode}: median pause ${sorted[Math.floor(sorted.length / 2)]} ms`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
