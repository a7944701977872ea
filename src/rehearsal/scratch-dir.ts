/**
 * The scratch home's folder: `<CHAINVISOR_REHEARSAL_DIR>/.chainvisor-rehearsal-<pid>-<random>`, hidden
 * and named after the chainvisor that made it, as partial backups are (src/home/backup/partials.ts). A
 * rehearsal killed half-way leaves it, and maybe its node running: the next `run` or `rehearse` stops
 * that node (recorded with its start time in `node.json`, so a reused pid is never signalled) and
 * removes the folder, once its maker is gone.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

import * as v from 'valibot';

import { isErrno } from '../shared/errors/index.js';
import { readBounded } from '../shared/fsread/index.js';
import { parseJson } from '../shared/json.js';
import type { Logger } from '../shared/log.js';
import { isProcessAlive, processStartToken } from '../shared/proc/index.js';

const pattern = /^\.chainvisor-rehearsal-(\d+)-[0-9a-f]{8}$/;

export function newScratchPath(rehearsalDir: string): string {
  return path.join(rehearsalDir, `.chainvisor-rehearsal-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** The pid of the chainvisor that made a scratch folder, from its name; undefined for any other name. */
export function scratchOwner(name: string): number | undefined {
  const match = pattern.exec(name);
  return match ? Number(match[1]) : undefined;
}

const recordName = 'node.json';
/** What recordScratchNode writes: the node's pid and its start time, so that a reused pid is never signalled. */
const recordSchema = v.object({ pid: v.pipe(v.number(), v.safeInteger(), v.minValue(1)), start: v.string() });

/** Records the scratch node, so that a later start can stop it when this chainvisor was killed. */
export async function recordScratchNode(scratch: string, pid: number): Promise<void> {
  const start = await processStartToken(pid);
  await fs.writeFile(path.join(scratch, recordName), `${JSON.stringify({ pid, start })}\n`);
}

async function stopRecordedNode(scratch: string, logger: Logger): Promise<void> {
  const read = await readBounded(path.join(scratch, recordName), 64 * 1024);
  if (read.status !== 'ok') return; // none, or not the record chainvisor writes: no node to stop by it
  const record = parseJson(read.text, recordSchema, { maxBytes: 64 * 1024 });
  if (!record.ok) return;
  const { pid, start } = record.value;
  if ((await processStartToken(pid)) !== start) return;
  logger.info({ nodePid: pid, scratch }, `stopping the scratch node (pid ${pid}) left by an interrupted rehearsal`);
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if (!isErrno(error, 'ESRCH')) throw error;
  }
  for (let i = 0; i < 50 && (await isProcessAlive(pid)); i++) await new Promise((r) => setTimeout(r, 100));
}

/** Removes scratch folders whose maker is gone (and their nodes); returns the folders removed. */
export async function removeLeftoverRehearsals(options: { rehearsalDir: string; logger: Logger }): Promise<string[]> {
  const { rehearsalDir, logger } = options;
  let names: string[];
  try {
    names = await fs.readdir(rehearsalDir);
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return [];
    logger.warn({ rehearsalDir, err: error }, `cannot look for left-over rehearsals in ${rehearsalDir}: ${(error as Error).message}`);
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const owner = scratchOwner(name);
    if (owner === undefined || owner === process.pid || (await isProcessAlive(owner))) continue;
    const full = path.join(rehearsalDir, name);
    try {
      await stopRecordedNode(full, logger);
      await fs.rm(full, { recursive: true, force: true });
      removed.push(full);
      logger.info({ path: full }, `removed the scratch home of an interrupted rehearsal: ${full}`);
    } catch (error) {
      logger.warn({ path: full, err: error }, `cannot remove the scratch home ${full}: ${(error as Error).message}; remove it by hand`);
    }
  }
  return removed;
}

/** Disk the scratch uses of its own: allocated blocks of its files not shared by a hard link with the live data. */
export async function ownDiskUse(dir: string): Promise<number> {
  let total = 0;
  const walk = async (current: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(current, { withFileTypes: true });
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return;
      throw error;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        const stat = await fs.lstat(full).catch(() => undefined);
        if (stat && stat.nlink === 1) total += stat.blocks * 512;
      }
    }
  };
  await walk(dir);
  return total;
}
