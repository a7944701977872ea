/**
 * The live node's `data/` copied into the scratch home while the node keeps writing it: the
 * application's database first, CometBFT's stores after it; each database copied in passes until its
 * MANIFEST holds still and every table it names is in the copy, whole; the signing state, the
 * consensus WAL, a pending upgrade and state-sync snapshots left out.
 * Why, and the rest of its rules: docs/design/rehearsal.md#rehearsalhot-copyts.
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

import { isImmutableTable, type Placer, type TreeEntry } from '../home/backup/index.js';
import { ChainvisorError, isErrno } from '../shared/errors/index.js';
import { readBounded, readBoundedBytes } from '../shared/fsread/index.js';
import type { Logger } from '../shared/log.js';
import { liveTables, tableNames } from './manifest.js';

/** Top-level entries of `data/` the scratch does not get. */
export const notCopied = new Set(['priv_validator_state.json', 'cs.wal', 'upgrade-info.json', 'upgrade-info.json.batch', 'snapshots']);
/** Files of a database folder that are only the engine's own lock and info log. */
const engineOwn = /^(LOCK|LOG|LOG\.old.*)$/;
const applicationDb = 'application.db';
/** A MANIFEST larger than this is not read whole (a long-lived LevelDB's stays in the MiB). */
const maxManifestBytes = 1024 * 1024 * 1024;
const stateDb = 'state.db';

export interface HotCopyOptions {
  dataDir: string;
  target: string;
  placer: Placer;
  logger: Logger;
  signal: AbortSignal;
  /** Passes per database before giving up (default 6). */
  maxPasses?: number;
  onBytes?: (n: number) => void;
}

export interface DatabaseCopy {
  /** Relative to `data/`. */
  rel: string;
  passes: number;
  /** True when every table of the MANIFEST was checked in the copy. */
  verified: boolean;
}

export async function copyLiveData(options: HotCopyOptions): Promise<{ databases: DatabaseCopy[] }> {
  const databases: DatabaseCopy[] = [];
  const root = await fs.realpath(options.dataDir);
  await fs.mkdir(options.target, { recursive: true });
  const names = (await fs.readdir(root)).filter((n) => !notCopied.has(n));
  // In the order a block is committed backwards, so that each store copied later may only be ahead of
  // the one before: the application's state first (CometBFT's handshake replays the blocks it lacks),
  // then CometBFT's state, then the block store and the rest (the block store is saved before the state).
  const rank = (name: string) => (name === applicationDb ? 0 : name === stateDb ? 1 : 2);
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const name of names) await copyEntry(root, name, options, databases);
  return { databases };
}

async function copyEntry(root: string, rel: string, options: HotCopyOptions, databases: DatabaseCopy[]): Promise<void> {
  options.signal.throwIfAborted();
  const src = path.join(root, rel);
  const dst = path.join(options.target, rel);
  // Links are followed: a link kept as a link would let the scratch node write into the live data.
  const stat = await statOrGone(src);
  if (stat === undefined) return;
  if (stat.isDirectory()) {
    const names = await fs.readdir(src);
    if (names.includes('CURRENT') || names.some((n) => n.startsWith('marker.manifest.'))) {
      databases.push(await copyDatabase(src, dst, rel, options));
      return;
    }
    await fs.mkdir(dst, { recursive: true, mode: stat.mode & 0o7777 });
    for (const name of names.sort()) await copyEntry(root, path.join(rel, name), options, databases);
  } else if (stat.isFile()) {
    await placeFresh(src, dst, rel, stat, options);
  }
}

interface ManifestState {
  name: string;
  size: number;
}

async function manifestState(dir: string): Promise<ManifestState | undefined> {
  let name: string | undefined;
  const current = await readBounded(path.join(dir, 'CURRENT'), 64 * 1024);
  if (current.status === 'refused') {
    throw new ChainvisorError('CHAINVISOR_REHEARSAL_COPY_FAILED', `cannot read ${path.join(dir, 'CURRENT')}: ${current.reason}`);
  }
  if (current.status === 'ok') name = current.text.trim();
  else {
    const marker = (await fs.readdir(dir))
      .filter((n) => n.startsWith('marker.manifest.'))
      .sort()
      .at(-1);
    name = marker?.split('.').slice(3).join('.');
  }
  if (name === undefined || name === '') return undefined;
  const stat = await statOrGone(path.join(dir, name));
  return stat && { name, size: stat.size };
}

async function copyDatabase(src: string, dst: string, rel: string, options: HotCopyOptions): Promise<DatabaseCopy> {
  const maxPasses = options.maxPasses ?? 6;
  await fs.mkdir(dst, { recursive: true });
  let reason = 'it has no MANIFEST';
  for (let pass = 1; pass <= maxPasses; pass++) {
    options.signal.throwIfAborted();
    // The bulk first: every table there now (immutable: linked, cloned or copied once).
    for (const name of (await fs.readdir(src)).filter((n) => isImmutableTable(n))) await placeIfMissing(src, dst, rel, name, undefined, options);
    // Then the database's state, in a short window that no flush or compaction may cross: its MANIFEST,
    // then the write-ahead logs (only ever newer than the MANIFEST's state) and the other small files.
    const snapshot = await copyState(src, dst, rel, options);
    if (typeof snapshot === 'string') {
      reason = snapshot;
      options.logger.debug({ database: rel, pass, reason }, 'copying the database again');
      continue;
    }
    // The copy's own MANIFEST (chainvisor placed it): one that cannot be read is a copy that cannot be checked.
    const manifest = await readBoundedBytes(path.join(dst, snapshot.name), maxManifestBytes);
    const live = manifest.status === 'ok' ? liveTables(manifest.bytes) : undefined;
    if (live === undefined) return { rel, passes: pass, verified: false };
    // Every table that state names, whole: those written since the bulk are placed now.
    const missing: string[] = [];
    for (const [number, size] of live.tables) {
      if (!(await tableInCopy(src, dst, rel, number, size, options))) missing.push(tableNames(number)[0] as string);
    }
    if (missing.length === 0) return { rel, passes: pass, verified: true };
    reason = `${missing.length} table${missing.length === 1 ? '' : 's'} its MANIFEST names (${missing.slice(0, 3).join(', ')}) were removed by a compaction before they could be copied`;
    options.logger.debug({ database: rel, pass, reason }, 'copying the database again');
  }
  throw new ChainvisorError(
    'CHAINVISOR_REHEARSAL_COPY_FAILED',
    `no consistent copy of ${src} could be taken from the running node in ${maxPasses} passes: ${reason}`,
  );
}

/**
 * The MANIFEST, logs and small files copied while the MANIFEST and the set of logs stay as they are
 * (a few tries); the MANIFEST's name, or why no steady state was seen.
 */
async function copyState(src: string, dst: string, rel: string, options: HotCopyOptions): Promise<ManifestState | string> {
  let reason = 'it has no MANIFEST';
  for (let attempt = 1; attempt <= 5; attempt++) {
    const before = await manifestState(src);
    if (before === undefined) continue;
    const names = await fs.readdir(src);
    const small = names
      .filter((n) => !isImmutableTable(n) && !engineOwn.test(n))
      .sort((a, b) => Number(b === before.name) - Number(a === before.name) || a.localeCompare(b));
    let vanished = false;
    for (const name of small) {
      if (!(await placeFresh(path.join(src, name), path.join(dst, name), path.join(rel, name), undefined, options)) && name !== before.name) vanished = true;
    }
    const after = await manifestState(src);
    const logsAfter = (await fs.readdir(src)).filter((n) => n.endsWith('.log'));
    const logsBefore = small.filter((n) => n.endsWith('.log'));
    if (after !== undefined && after.name === before.name && after.size === before.size && !vanished && sameSet(logsBefore, logsAfter)) return before;
    reason = `its MANIFEST or write-ahead logs changed while they were copied (${before.name}, ${before.size} → ${after ? `${after.name}, ${after.size}` : 'gone'} bytes)`;
  }
  return reason;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** True when table `number` is in the copy with `size` bytes, placing it from the live folder if need be. */
async function tableInCopy(src: string, dst: string, rel: string, number: number, size: number, options: HotCopyOptions): Promise<boolean> {
  for (const name of tableNames(number)) {
    const have = await statOrGone(path.join(dst, name));
    if (have?.size === size) return true;
    if (have !== undefined) await fs.rm(path.join(dst, name), { force: true }); // copied while it was being written
    const live = await statOrGone(path.join(src, name));
    if (live?.size === size && (await placeIfMissing(src, dst, rel, name, live, options))) return true;
  }
  return false;
}

async function placeIfMissing(src: string, dst: string, rel: string, name: string, stat: Stats | undefined, options: HotCopyOptions): Promise<boolean> {
  if ((await statOrGone(path.join(dst, name))) !== undefined) return true;
  return placeFresh(path.join(src, name), path.join(dst, name), path.join(rel, name), stat, options);
}

/** Places one file (replacing an earlier copy); false when it vanished first (the engine removed it). */
async function placeFresh(src: string, dst: string, rel: string, known: Stats | undefined, options: HotCopyOptions): Promise<boolean> {
  const stat = known ?? (await statOrGone(src));
  if (stat === undefined || !stat.isFile()) return false;
  await fs.rm(dst, { force: true });
  const entry: TreeEntry = { rel, kind: 'file', size: stat.size, mode: stat.mode & 0o7777, atime: stat.atimeMs / 1000, mtime: stat.mtimeMs / 1000 };
  try {
    await options.placer.place(src, dst, entry, options.onBytes ?? (() => undefined));
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) {
      await fs.rm(dst, { force: true });
      return false;
    }
    throw copyError(src, error);
  }
}

async function statOrGone(file: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(file);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw copyError(file, error);
  }
}

function copyError(file: string, error: unknown): unknown {
  if (error instanceof ChainvisorError || !(error instanceof Error) || !('code' in error)) return error;
  const code = String((error as NodeJS.ErrnoException).code);
  return new ChainvisorError(
    code === 'ENOSPC' || code === 'EDQUOT' ? 'CHAINVISOR_REHEARSAL_NO_SPACE' : 'CHAINVISOR_REHEARSAL_COPY_FAILED',
    `copying ${file} into the scratch home failed: ${error.message}`,
    { cause: error },
  );
}
