/**
 * The record of the running node, `node.json` in the state folder, so that a chainvisor killed with
 * SIGKILL (which cannot stop its child) lets the next one find the node it left behind.
 *
 * Written in two steps around the spawn: before it, the run's id (CHAINVISOR_RUN_ID, also put in the
 * node's environment); after it, the pid and the process's start time. Removed once the node has
 * exited. A kill between spawn and the second write leaves only the run id, which is enough on Linux:
 * the orphan is the process whose environment carries it. It also publishes where the node listens
 * (from its flags, else its files), for the one-shot commands that must find it: runningNodeAddresses.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import * as v from 'valibot';

import type { ChainAddresses } from '../chain/index.js';
import { ChainvisorError, isFsError, layoutFsError } from '../shared/errors/index.js';
import { readRecord, recordFields } from '../shared/fsread/index.js';
import { makeFolders, replaceFile } from '../shared/fswrite/index.js';
import type { Logger } from '../shared/log.js';
import { processStartToken } from '../shared/proc/index.js';
import type { HomePaths } from './home-paths.js';

/** Environment variable carrying the run id into the node (and every process it starts). */
export const runIdVariable = 'CHAINVISOR_RUN_ID';

export interface NodeRecord {
  runId: string;
  /** The chainvisor that started the node. */
  supervisorPid: number;
  binary: string;
  /** Absent until the spawn returned. */
  pid?: number;
  startToken?: string;
  startedAt: string;
  /** Where the node listens, as `run` found it from the node's arguments and files (not the operator's settings). */
  addresses?: ChainAddresses;
}

export interface NodeTracker {
  runId: string;
  /** Extra environment for the node. */
  env: Record<string, string>;
  /**
   * Call before spawning `binary` (it may be called while the previous node is still stopping: its
   * exit then leaves this record in place).
   */
  beforeSpawn(binary: string): Promise<void>;
  /** Call with the spawned node; the record is completed now and removed when `exited` settles, unless a newer one was begun. */
  spawned(node: { pid: number | undefined; exited: Promise<unknown> }): void;
  /** The node whose record beforeSpawn began will not be started after all: its record is removed. */
  notSpawned(): Promise<void>;
  /** Resolves when every pending write has landed (tests, shutdown). */
  settled(): Promise<void>;
}

/** A pid: 0 and negative numbers signal process groups, never one node. */
const pidNumber = v.pipe(recordFields.count, v.minValue(1, 'not a process id'));

const nodeRecordSchema = v.strictObject({
  runId: v.pipe(v.string(), v.nonEmpty('empty')),
  supervisorPid: pidNumber,
  binary: v.string(),
  pid: v.optional(pidNumber),
  startToken: v.optional(v.string()),
  startedAt: v.string(),
  addresses: v.optional(
    v.strictObject({
      rpc: v.strictObject({ address: v.string(), source: v.string() }),
      grpc: v.strictObject({ address: v.string(), source: v.string(), enabled: v.boolean() }),
    }),
  ),
});

export function nodeRecordPath(layout: HomePaths): string {
  return path.join(layout.stateDir, 'node.json');
}

export function createNodeTracker(options: { layout: HomePaths; logger: Logger; runId?: string; addresses?: ChainAddresses }): NodeTracker {
  const { layout, logger } = options;
  const runId = options.runId ?? randomBytes(12).toString('hex');
  const file = nodeRecordPath(layout);
  let record: NodeRecord | undefined;
  // Counts beforeSpawn calls: a node's exit removes the record only if no later node's record was begun.
  let generation = 0;
  let spawnedGeneration = 0;
  // Writes and the removal run one after the other, so a removal never lands after the next node's record.
  let queue: Promise<void> = Promise.resolve();
  let warned = false;
  const enqueue = (step: () => Promise<void>): Promise<void> => {
    queue = queue.then(step).catch((error: unknown) => {
      if (warned) return;
      warned = true;
      logger.warn(
        { file, err: error },
        'could not write the node record; if chainvisor is killed with SIGKILL, the next start may not find the node it leaves running',
      );
    });
    return queue;
  };
  let folderMade = false;
  const put = async (value: NodeRecord) => {
    if (!folderMade) await makeFolders(layout.stateDir);
    folderMade = true;
    await replaceFile(file, `${JSON.stringify(value)}\n`, 0o644);
  };
  const write = (value: NodeRecord) => enqueue(() => put(value));
  return {
    runId,
    env: { [runIdVariable]: runId },
    beforeSpawn(binary) {
      generation += 1;
      const addresses = options.addresses === undefined ? {} : { addresses: options.addresses };
      record = { runId, supervisorPid: process.pid, binary, startedAt: new Date().toISOString(), ...addresses };
      return write(record);
    },
    spawned(node) {
      const base = record;
      const mine = generation;
      spawnedGeneration = mine;
      if (base !== undefined && node.pid !== undefined) {
        const pid = node.pid;
        void enqueue(async () => {
          const token = await processStartToken(pid);
          // The node may already be gone (a binary that exits at once): then there is nothing to find.
          // …or a later node's record was begun meanwhile, which this one must not overwrite.
          if (token === undefined || mine !== generation) return;
          await put({ ...base, pid, startToken: token });
        });
      }
      void node.exited.catch(() => undefined).then(() => enqueue(async () => (mine === generation ? fs.rm(file, { force: true }) : undefined)));
    },
    notSpawned() {
      const mine = generation;
      return enqueue(async () => {
        if (mine === generation && spawnedGeneration !== mine) await fs.rm(file, { force: true });
      });
    },
    settled: () => queue,
  };
}

/**
 * The record a previous run left; undefined when there is none. A damaged record (issue #31) cannot
 * say whether a node of this home still runs, so the start stops (CHAINVISOR_ORPHAN_NODE, exit 82)
 * rather than start a second node beside one it cannot see — unless it was last written before this
 * machine booted: nothing started before a boot still runs (a power cut may leave a half-written file,
 * the record being written without a flush), and then it is ignored with a warning (the next node's
 * record replaces it).
 */
export async function readNodeRecord(layout: HomePaths, logger?: Logger): Promise<NodeRecord | undefined> {
  const file = nodeRecordPath(layout);
  const read = await readRecord(file, nodeRecordSchema, 64 * 1024);
  if (read.status === 'missing') return undefined;
  if (read.status === 'ok') return read.value;
  const changed = await fs.lstat(file).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
  const bootedAt = Date.now() - os.uptime() * 1000;
  if (changed !== undefined && changed < bootedAt) {
    logger?.warn(
      { file, reason: read.reason },
      `ignoring the node record ${file}: ${read.reason}; it was written before this machine started, so the node it named is not running`,
    );
    return undefined;
  }
  throw new ChainvisorError(
    'CHAINVISOR_ORPHAN_NODE',
    `the record of the node the last chainvisor started, ${file}, cannot be read: ${read.reason}; whether that node still runs cannot be told, so no second node is started beside it`,
    {
      hint: `look for a node of this home still running (ps -eo pid,lstart,args; its environment has ${runIdVariable}) and stop it if there is one; then remove ${file} and start chainvisor again`,
    },
  );
}

/**
 * Where the node `run` started listens, while that node runs (its pid alive with the recorded start
 * time); undefined otherwise — no run, a node between stop and start, a stale or damaged record — and
 * the caller then reads the node's files. Never throws for the record: it is a hint, not a guard.
 */
export async function runningNodeAddresses(layout: HomePaths): Promise<ChainAddresses | undefined> {
  const read = await readRecord(nodeRecordPath(layout), nodeRecordSchema, 64 * 1024);
  if (read.status !== 'ok') return undefined;
  const { pid, startToken, addresses } = read.value;
  if (addresses === undefined || pid === undefined || startToken === undefined) return undefined;
  return (await processStartToken(pid)) === startToken ? addresses : undefined;
}

export async function removeNodeRecord(layout: HomePaths): Promise<void> {
  try {
    await fs.rm(nodeRecordPath(layout), { force: true });
  } catch (error) {
    throw isFsError(error) ? layoutFsError(nodeRecordPath(layout), 'remove', error) : error;
  }
}
