/**
 * Benchmark of data backups (not a test: it prints numbers and never fails on timing).
 *
 *   npm run bench:backup                          # 2 GiB LevelDB-shaped folder, then a 10k-file folder
 *   node dist/bench/backup.js --gib 0.5 --files 2000 --dir /mnt/xfs/tmp   # smaller, or on another disk
 *
 * 1. A 2 GiB data folder shaped like a node's: LevelDB/PebbleDB tables (24 × 64 MiB and 220 × 2 MiB
 *    `*.ldb`/`*.sst`), each database's MANIFEST, CURRENT, LOG, LOCK and a write-ahead `*.log`, a
 *    consensus WAL and the validator state file. Backed up with `cp -a` and with chainvisor in each
 *    mode (`reflink` falls back to a copy where the filesystem cannot clone; the table says so).
 * 2. A data folder of 10,000 small files: `cp -a`, chainvisor's previous backup (one `fs.cp` call,
 *    kept below as it was), and each mode.
 * The page cache cannot be dropped without privileges: the data is generated first (so it is in the
 * cache for every contender alike), `sync` runs before each measurement (so no one pays for another's
 * write-back), each contender runs --runs times (3): the first warms up and is discarded, the fastest
 * of the others is reported (other work on the machine only ever adds time); each run is timed twice: the backup call
 * alone (a copy may then still sit in the page cache) and the backup followed by `sync` (until it is on
 * disk, which is what a copy of a real node's hundreds of GiB costs). Everything is written in a
 * temp folder (or --dir) and removed afterwards; the free space is checked first.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';

import { restoreSigning } from '../src/guard/index.js';
import { backupData, planRestore, type RequestedMode, restoreData } from '../src/home/backup/index.js';
import { layoutFor } from '../src/home/layout/index.js';
import { silentLogger } from '../src/shared/log.js';
import { writeFile } from './support/files.js';

const run = promisify(execFile);
const MiB = 1 << 20;
const { values: args } = parseArgs({
  options: {
    gib: { type: 'string', default: '2' },
    files: { type: 'string', default: '10000' },
    dir: { type: 'string', default: os.tmpdir() },
    runs: { type: 'string', default: '3' },
    /** `restore`: only the restore of the large folder from a backup of each mode. */
    only: { type: 'string', default: '' },
  },
});
const runs = Math.max(1, Number(args.runs));

// ------------------------------------------------------------------ data generation

/** A database folder: tables plus the files LevelDB rewrites or appends. */
async function makeDb(dir: string, tables: { count: number; size: number; ext: string }[], walSize: number, seed: number): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  let n = 5;
  for (const t of tables) for (let i = 0; i < t.count; i++) await writeFile(path.join(dir, `${String(n++).padStart(6, '0')}.${t.ext}`), t.size, seed + n);
  await writeFile(path.join(dir, `${String(n++).padStart(6, '0')}.log`), walSize, seed + n);
  await writeFile(path.join(dir, 'MANIFEST-000004'), 64 * 1024, seed);
  await fs.writeFile(path.join(dir, 'CURRENT'), 'MANIFEST-000004\n');
  await writeFile(path.join(dir, 'LOG'), 512 * 1024, seed + 1);
  await fs.writeFile(path.join(dir, 'LOCK'), '');
}

async function makeBigData(root: string, gib: number): Promise<void> {
  const scale = gib / 2;
  const count = (n: number): number => Math.max(1, Math.round(n * scale));
  await makeDb(path.join(root, 'application.db'), [{ count: count(24), size: 64 * MiB, ext: 'ldb' }], 16 * MiB, 1);
  await makeDb(path.join(root, 'blockstore.db'), [{ count: count(120), size: 2 * MiB, ext: 'ldb' }], 16 * MiB, 2);
  await makeDb(path.join(root, 'state.db'), [{ count: count(100), size: 2 * MiB, ext: 'sst' }], 8 * MiB, 3);
  await fs.mkdir(path.join(root, 'cs.wal'));
  await writeFile(path.join(root, 'cs.wal', 'wal'), 8 * MiB, 4);
  await fs.writeFile(path.join(root, 'priv_validator_state.json'), '{"height":"0","round":0,"step":0}\n', { mode: 0o600 });
}

async function makeSmallFiles(root: string, files: number): Promise<void> {
  const perDir = 500;
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `db${Math.floor(i / perDir)}`);
    if (i % perDir === 0) await fs.mkdir(dir, { recursive: true });
    const ext = i % 3 === 0 ? 'log' : 'ldb';
    await writeFile(path.join(dir, `${String(i).padStart(6, '0')}.${ext}`), 1024 + ((i * 7919) % (15 * 1024)), i);
  }
}

// ------------------------------------------------------------------ contenders

/** chainvisor's backup before src/home/backup existed: one fs.cp call, kept as it was for comparison. */
async function oldFsCp(dataDir: string, target: string): Promise<void> {
  await fs.cp(dataDir, target, { recursive: true, mode: constants.COPYFILE_FICLONE, preserveTimestamps: true, verbatimSymlinks: true });
}

interface Contender {
  name: string;
  backup(data: string, out: string): Promise<string>;
}

const cpA: Contender = {
  name: 'cp -a',
  async backup(data, out) {
    await run('cp', ['-a', data, path.join(out, 'copy')]);
    return '';
  },
};

function chainvisor(mode: RequestedMode): Contender {
  return {
    name: `chainvisor ${mode}`,
    async backup(data, out) {
      const result = await backupData({ dataDir: data, backupDir: out, logger: silentLogger(), mode });
      if (result === undefined) throw new Error('no data');
      return mode === result.mode ? '' : `ran as ${result.mode}`;
    },
  };
}

const oldBackup: Contender = {
  name: 'previous backup (fs.cp)',
  async backup(data, out) {
    await oldFsCp(data, path.join(out, 'copy'));
    return '';
  },
};

interface Row {
  name: string;
  /** The backup call alone (the copy may still sit in the page cache). */
  seconds: number;
  /** Backup, then `sync`: until the backup is on disk. */
  durable: number;
  note: string;
}

async function measure(data: string, work: string, contenders: Contender[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const c of contenders) {
    let row: Row | undefined;
    for (let i = 0; i < runs; i++) {
      const out = path.join(work, 'out');
      await fs.rm(out, { recursive: true, force: true });
      await fs.mkdir(out);
      await run('sync');
      const started = process.hrtime.bigint();
      const note = await c.backup(data, out);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      await run('sync');
      const durable = Number(process.hrtime.bigint() - started) / 1e9;
      if ((i > 0 || runs === 1) && (row === undefined || durable < row.durable)) row = { name: c.name, seconds, durable, note };
      await fs.rm(out, { recursive: true, force: true });
    }
    if (row === undefined) continue;
    rows.push(row);
    process.stderr.write(`  ${c.name}: ${row.seconds.toFixed(3)} s, ${row.durable.toFixed(3)} s with sync\n`);
  }
  return rows;
}

function table(title: string, rows: Row[]): void {
  const base = rows.find((r) => r.name === 'cp -a');
  console.log(`\n**${title}**\n`);
  console.log('| contender | seconds | × faster than cp -a | seconds with sync | × faster than cp -a + sync | note |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const r of rows) {
    const x = (b: number | undefined, v: number): string => (b === undefined ? '–' : `${(b / v).toFixed(1)}×`);
    console.log(
      `| ${r.name} | ${r.seconds.toFixed(3)} | ${x(base?.seconds, r.seconds)} | ${r.durable.toFixed(3)} | ${x(base?.durable, r.durable)} | ${r.note} |`,
    );
  }
}

async function folderBytes(dir: string): Promise<number> {
  const { stdout } = await run('du', ['-sb', dir]);
  return Number(stdout.split('\t')[0]);
}

// ------------------------------------------------------------------ restore

/**
 * `chainvisor restore` of the large folder from a backup made in each mode (issue #28): the backup is
 * copied back (clones where the filesystem allows, copies otherwise), whatever mode made it. Each run
 * puts the replaced data back afterwards, so every run restores the same data over the same data.
 */
async function measureRestores(big: string, work: string): Promise<Row[]> {
  const home = path.join(work, 'home');
  const data = path.join(home, 'data');
  await fs.mkdir(path.join(home, 'cosmovisor', 'genesis', 'bin'), { recursive: true });
  await fs.rename(big, data);
  const layout = layoutFor({ home, name: 'simd' });
  const signing = restoreSigning(layout);
  const rows: Row[] = [];
  try {
    for (const mode of ['copy', 'reflink', 'link'] as const) {
      const backups = path.join(work, 'backups');
      await fs.mkdir(backups, { recursive: true });
      const made = await backupData({ dataDir: data, backupDir: backups, logger: silentLogger(), mode });
      if (made === undefined) throw new Error('no data');
      let row: Row | undefined;
      for (let i = 0; i < runs; i++) {
        await run('sync');
        const started = process.hrtime.bigint();
        const plan = await planRestore({ layout, backupDir: backups, backup: made.path, keepBinary: true, signing });
        const record = await restoreData({ plan, layout, signing, logger: silentLogger() });
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        await run('sync');
        const durable = Number(process.hrtime.bigint() - started) / 1e9;
        const note = `${made.mode} backup${made.mode === mode ? '' : ` (asked ${mode})`}, restored as ${record.mode === 'reflink' ? 'clones' : 'copies'}`;
        if ((i > 0 || runs === 1) && (row === undefined || durable < row.durable)) row = { name: `restore of a ${mode} backup`, seconds, durable, note };
        await fs.rm(data, { recursive: true, force: true });
        await fs.rename(plan.replaced, data);
      }
      await fs.rm(backups, { recursive: true, force: true });
      if (row === undefined) continue;
      rows.push(row);
      process.stderr.write(`  ${row.name}: ${row.seconds.toFixed(3)} s, ${row.durable.toFixed(3)} s with sync\n`);
    }
  } finally {
    await fs.rename(data, big);
  }
  return rows;
}

// ------------------------------------------------------------------ main

const gib = Number(args.gib);
const files = Number(args.files);
const work = await fs.mkdtemp(path.join(args.dir, 'chainvisor-bench-backup-'));
try {
  const stats = await fs.statfs(work);
  const free = Number(stats.bavail) * Number(stats.bsize);
  const needed = 2 * gib * 1024 * MiB + 2 * files * 20 * 1024 + 256 * MiB;
  if (free < needed) throw new Error(`${work}: ${(free / 2 ** 30).toFixed(1)} GiB free, the benchmark needs ${(needed / 2 ** 30).toFixed(1)} GiB`);
  const fsType = (await run('stat', ['-f', '-c', '%T', work])).stdout.trim();
  const { stdout: cpVersion } = await run('cp', ['--version']);
  console.log(
    `backup benchmark: Node ${process.version}, ${os.cpus().length} CPUs, filesystem ${fsType} (${work}), ${cpVersion.split('\n')[0]}, fastest of runs 2–${runs} reported, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );

  const big = path.join(work, 'big', 'data');
  process.stderr.write(`generating ${gib} GiB of LevelDB-shaped data…\n`);
  await makeBigData(big, gib);
  const bigBytes = await folderBytes(big);
  const modes: RequestedMode[] = ['copy', 'reflink', 'link', 'auto'];
  const restoreTitle = `restore of the ${(bigBytes / 2 ** 30).toFixed(2)} GiB data folder (chainvisor restore; cp -a for comparison)`;
  if (args.only === 'restore') {
    table(restoreTitle, [...(await measure(big, path.join(work, 'big'), [cpA])), ...(await measureRestores(big, path.join(work, 'big')))]);
  } else {
    table(
      `${(bigBytes / 2 ** 30).toFixed(2)} GiB data folder (${(await run('find', [big, '-type', 'f'])).stdout.trim().split('\n').length} files)`,
      await measure(big, path.join(work, 'big'), [cpA, ...modes.map(chainvisor)]),
    );
    table(restoreTitle, await measureRestores(big, path.join(work, 'big')));
    await fs.rm(path.join(work, 'big'), { recursive: true, force: true });

    const small = path.join(work, 'small', 'data');
    process.stderr.write(`generating ${files} small files…\n`);
    await makeSmallFiles(small, files);
    table(
      `${files} files, ${((await folderBytes(small)) / MiB).toFixed(0)} MiB`,
      await measure(small, path.join(work, 'small'), [cpA, oldBackup, ...modes.map(chainvisor)]),
    );
  }
  console.log(
    `\nload average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  await fs.rm(work, { recursive: true, force: true });
}
