/**
 * What one supervisor per home costs at start-up.
 *
 *   in-process: acquireHomeLock + release, for each lock mode (abstract socket on Linux, socket file);
 *               the start-up housekeeping after it (no node record, no work folder: the common case);
 *               the node record written before each node start (on the switch's path);
 *   end to end: a second `chainvisor run` on a locked home, from spawn to its exit 82 — what an operator
 *               waits for — against `chainvisor config` (the same start-up and settings check, no lock) as baseline.
 *
 *   npm run bench:lock -- [--iterations 500] [--runs 10]
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { execa } from 'execa';

import { acquireHomeLock, createNodeTracker, type LockMode, stopOrphanNode } from '../src/guard/index.js';
import { layoutFor, removeLeftoverWorkFolders } from '../src/home/layout/index.js';
import { createLogger } from '../src/shared/log.js';

const chainvisor = path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js');
const { values } = parseArgs({ options: { iterations: { type: 'string', default: '500' }, runs: { type: 'string', default: '10' } } });
const iterations = Number(values.iterations);
const runs = Number(values.runs);
const logger = createLogger({ disabled: true });

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return `median ${at(0.5).toFixed(3)} ms, p90 ${at(0.9).toFixed(3)} ms, max ${at(1).toFixed(3)} ms (n=${samples.length})`;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-bench-lock-'));
try {
  const home = path.join(root, 'home');
  await fs.mkdir(path.join(home, 'cosmovisor', 'upgrades'), { recursive: true });
  const layout = layoutFor({ home, name: 'simd' });
  console.log(`chainvisor home lock — node ${process.version}, ${os.cpus().length} cores, ${process.platform}`);

  const modes: LockMode[] = process.platform === 'linux' ? ['abstract', 'socket-file'] : ['socket-file'];
  for (const mode of modes) {
    const acquire: number[] = [];
    const release: number[] = [];
    for (let i = 0; i < iterations; i++) {
      let lock: Awaited<ReturnType<typeof acquireHomeLock>> | undefined;
      acquire.push(await timed(async () => (lock = await acquireHomeLock({ layout, version: 'bench', logger, mode }))));
      release.push(await timed(() => (lock as NonNullable<typeof lock>).release()));
    }
    console.log(`  ${mode.padEnd(11)} acquire: ${stats(acquire)}`);
    console.log(`  ${mode.padEnd(11)} release: ${stats(release)}`);
  }

  const housekeeping: number[] = [];
  for (let i = 0; i < iterations; i++) {
    housekeeping.push(
      await timed(async () => {
        await stopOrphanNode({ layout, logger, graceMs: 0 });
        await removeLeftoverWorkFolders({ parents: [layout.root, layout.upgradesDir], logger });
      }),
    );
  }
  console.log(`  start-up checks (node record, work folders; none present): ${stats(housekeeping)}`);

  // What each node start pays on the switch's path: the node record written before the spawn.
  const tracker = createNodeTracker({ layout, logger });
  const record: number[] = [];
  for (let i = 0; i < iterations; i++) record.push(await timed(() => tracker.beforeSpawn('/bin/true')));
  console.log(`  node record before each spawn: ${stats(record)}`);

  // End to end: a real home held by a real `run`.
  const node = path.join(root, 'simd');
  await fs.writeFile(node, '#!/bin/sh\nwhile :; do sleep 1; done\n', { mode: 0o755 });
  const env = { ...process.env, DAEMON_HOME: home, DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true', COSMOVISOR_DISABLE_LOGS: 'true' };
  await execa(process.execPath, [chainvisor, 'init', node], { env });
  const holder = execa(process.execPath, [chainvisor, 'run', 'start'], { env, reject: false, stdin: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const refused: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < runs; i++) {
    baseline.push(await timed(() => execa(process.execPath, [chainvisor, 'config'], { env, reject: false })));
    refused.push(
      await timed(async () => {
        const r = await execa(process.execPath, [chainvisor, 'run', 'start'], { env, reject: false, stdin: 'ignore' });
        if (r.exitCode !== 82) throw new Error(`expected exit 82, got ${r.exitCode}: ${r.stderr}`);
      }),
    );
  }
  holder.kill('SIGTERM');
  await holder;
  console.log(`  second 'chainvisor run' refused (spawn → exit 82): ${stats(refused)}`);
  console.log(`  'chainvisor config' (same start-up, no lock):       ${stats(baseline)}`);
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
