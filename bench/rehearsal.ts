/**
 * Benchmark of rehearsals (not a test: it prints numbers and never fails on timing).
 *
 *   npm run bench:rehearsal                      # a simulated home with 2 GiB of data, 3 runs per mode
 *   node dist/bench/rehearsal.js --gib 0.5 --runs 5 --dir /mnt/xfs/tmp
 *
 * A simulated node's home (genesis, v2 installed ahead) runs under `chainvisor run` with 50 ms blocks;
 * its data gets 2 GiB of table files shaped like a node's block store (24 × 64 MiB and 220 × 2 MiB
 * `*.ldb` with a MANIFEST, CURRENT and a write-ahead log) beside the application's real database. Then
 * `chainvisor rehearse v2 --output json` runs while the live node keeps committing, once per copy mode
 * (CHAINVISOR_BACKUP_MODE: `auto` — links on this filesystem, or clones where it can — and `copy`), --runs
 * times (3). Printed per mode: the median of the copy phase and of the whole rehearsal (the command's
 * wall time), the migration and the scratch's own disk use, from the reports. `sync` runs before each run.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';

import { buildVersions } from '@chainvisor/simd';

import { writeFile } from './support/files.js';

const exec = promisify(execFile);
const MiB = 1 << 20;
const { values: args } = parseArgs({
  options: { gib: { type: 'string', default: '2' }, runs: { type: 'string', default: '3' }, dir: { type: 'string', default: os.tmpdir() } },
});
const runs = Math.max(1, Number(args.runs));
const bin = path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js');

/** A block store's worth of tables: `gib` GiB in 64 MiB and 2 MiB files, as in bench:backup. */
async function blockStore(dir: string, gib: number): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  const total = gib * 1024 * MiB;
  const big = Math.floor((total * 0.75) / (64 * MiB));
  const small = Math.floor((total - big * 64 * MiB) / (2 * MiB));
  let n = 10;
  for (let i = 0; i < big; i++, n++) await writeFile(path.join(dir, `${String(n).padStart(6, '0')}.ldb`), 64 * MiB, n);
  for (let i = 0; i < small; i++, n++) await writeFile(path.join(dir, `${String(n).padStart(6, '0')}.ldb`), 2 * MiB, n);
  await fs.writeFile(path.join(dir, 'CURRENT'), 'MANIFEST-000002\n');
  await fs.writeFile(path.join(dir, 'MANIFEST-000002'), '');
  await writeFile(path.join(dir, '000009.log'), 4 * MiB, 9);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<void> {
  const root = await fs.mkdtemp(path.join(args.dir, 'chainvisor-bench-rehearsal-'));
  const home = path.join(root, 'home');
  const grpc = `127.0.0.1:${30000 + Math.floor(Math.random() * 20000)}`;
  const env = {
    ...process.env,
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    UNSAFE_SKIP_BACKUP: 'true',
    DAEMON_GRPC_ADDRESS: grpc,
    COSMOVISOR_DISABLE_LOGS: 'true',
  };
  let live: ReturnType<typeof spawn> | undefined;
  try {
    const built = await buildVersions({ out: path.join(root, 'versions'), versions: ['genesis', 'v2'] });
    await exec(built.versions.genesis!.bin, ['init', 'bench', '--home', home]);
    await exec(process.execPath, [bin, 'init', built.versions.genesis!.bin], { env });
    await exec(process.execPath, [bin, 'add-upgrade', 'v2', built.versions.v2!.bin], { env });
    const t0 = performance.now();
    await blockStore(path.join(home, 'data', 'blockstore.db'), Number(args.gib));
    console.log(`generated ${args.gib} GiB of block store tables in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    live = spawn(
      process.execPath,
      [
        bin,
        'run',
        'start',
        '--home',
        home,
        '--block-time',
        '50ms',
        '--rpc.laddr',
        'tcp://127.0.0.1:0',
        '--grpc.address',
        grpc,
        '--api.address',
        'tcp://127.0.0.1:0',
      ],
      { env, stdio: 'ignore' },
    );
    await sleep(3000); // some blocks first
    console.log(`\nrehearse v2 on ${os.cpus().length} CPUs, ${runs} runs per mode, medians:`);
    console.log('mode   copy (s)   rehearsal (s)   migration (s)   scratch disk (MiB)');
    for (const mode of ['auto', 'copy']) {
      const copy: number[] = [];
      const total: number[] = [];
      const migration: number[] = [];
      const disk: number[] = [];
      let chosen = '';
      for (let i = 0; i < runs; i++) {
        await exec('sync');
        const start = performance.now();
        const { stdout, stderr } = await exec(process.execPath, [bin, 'rehearse', 'v2', '--output', 'json'], {
          env: { ...env, CHAINVISOR_BACKUP_MODE: mode, COSMOVISOR_DISABLE_LOGS: 'false' },
          maxBuffer: 64 * MiB,
        });
        total.push((performance.now() - start) / 1000);
        const report = JSON.parse(stdout) as { phases: { copy: number }; migration_seconds: number; scratch_bytes: number };
        copy.push(report.phases.copy);
        migration.push(report.migration_seconds);
        disk.push(report.scratch_bytes / MiB);
        chosen = /"mode":"(\w+)"/.exec(stderr)?.[1] ?? mode;
      }
      console.log(
        `${`${mode}${chosen !== mode ? ` (${chosen})` : ''}`.padEnd(6)} ${median(copy).toFixed(2).padStart(8)}   ${median(total).toFixed(2).padStart(13)}   ${median(migration).toFixed(2).padStart(13)}   ${median(disk).toFixed(0).padStart(18)}`,
      );
    }
  } finally {
    live?.kill('SIGTERM');
    if (live) await new Promise((r) => live?.once('exit', r));
    await fs.rm(root, { recursive: true, force: true });
  }
}

await main();
