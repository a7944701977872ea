/**
 * One supervisor per home: `chainvisor run` holds a lock for as long as it lives, so a second `run`
 * on the same $DAEMON_HOME refuses at once (exit 82) instead of starting a second node — two signers
 * of one validator get it slashed.
 * Why, and the rest of its rules: docs/design/double-sign.md#guardhome-lockts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import * as v from 'valibot';

import { ChainvisorError, isErrno, isFsError, layoutFsError } from '../shared/errors/index.js';
import { parseRecord, readRecord, recordFields } from '../shared/fsread/index.js';
import { makeFolders, replaceFile } from '../shared/fswrite/index.js';
import type { Logger } from '../shared/log.js';
import { processStartToken } from '../shared/proc/index.js';
import type { HomePaths } from './home-paths.js';

export type LockMode = 'abstract' | 'socket-file';

/** Who holds the lock, as the holder tells it. */
export interface LockHolder {
  pid: number;
  /** processStartToken of the holder: tells it apart from a later process with the same pid. */
  startToken?: string;
  startedAt: string;
  version: string;
  home: string;
}

export interface HomeLock {
  mode: LockMode;
  /** The socket's address (abstract names start with a NUL byte). */
  address: string;
  holder: LockHolder;
  /** Gives the lock up; idempotent. The process's end releases it too. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  layout: HomePaths;
  version: string;
  logger: Logger;
  /** Default: `abstract` on Linux, `socket-file` elsewhere. */
  mode?: LockMode;
}

/** Not strict: only names the holder, and a later chainvisor version may tell more. */
const holderSchema = v.object({
  pid: v.pipe(recordFields.count, v.minValue(1)),
  startToken: v.optional(v.string()),
  startedAt: v.string(),
  version: v.string(),
  home: v.string(),
});

export function lockRecordPath(layout: HomePaths): string {
  return path.join(layout.stateDir, 'lock.json');
}

/** Takes the home's lock or throws CHAINVISOR_HOME_LOCKED (exit 82) naming the holder. */
export async function acquireHomeLock(options: AcquireOptions): Promise<HomeLock> {
  const { layout, logger } = options;
  const mode = options.mode ?? (process.platform === 'linux' ? 'abstract' : 'socket-file');
  const home = await realHome(layout);
  const holder: LockHolder = {
    pid: process.pid,
    ...(await startTokenOf(process.pid)),
    startedAt: new Date().toISOString(),
    version: options.version,
    home,
  };
  const address = mode === 'abstract' ? abstractAddress(home) : await socketFileAddress(layout, home);
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(`${JSON.stringify(holder)}\n`);
  });
  await listen(server, address, mode, layout);
  // Attached only once listening: the listen attempt handles its own error (EADDRINUSE is the
  // expected refusal, not something to warn about before exit 82).
  server.on('error', (error) => logger.warn({ err: error }, 'home lock socket error'));
  // The lock must never keep chainvisor alive on its own.
  server.unref();

  const previous = await readLockRecord(layout);
  if (previous !== undefined && previous.pid !== process.pid) {
    logger.info(
      { previous: previous.pid, since: previous.startedAt },
      'took over the home lock left by a chainvisor that is no longer running (pid %d)',
      previous.pid,
    );
  }
  try {
    await makeFolders(layout.stateDir);
    await replaceFile(lockRecordPath(layout), `${JSON.stringify(holder)}\n`, 0o644);
  } catch (error) {
    // The lock itself is held; the record only helps an operator name the holder.
    logger.warn({ file: lockRecordPath(layout), err: error }, 'could not write the lock record; the lock is held all the same');
  }

  let released = false;
  return {
    mode,
    address,
    holder,
    async release() {
      if (released) return;
      released = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const current = await readLockRecord(layout);
      if (current?.pid === process.pid) await fs.rm(lockRecordPath(layout), { force: true });
    },
  };
}

async function listen(server: net.Server, address: string, mode: LockMode, layout: HomePaths): Promise<void> {
  // A socket file whose listener died is stale: remove it and try again (a few times, as another
  // starter may be doing the same).
  for (let attempt = 0; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(address, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      if (!isErrno(error, 'EADDRINUSE')) throw lockIoError(address, error);
      const answer = await askHolder(address);
      if (answer.kind === 'held') throw new HomeLockedError(layout, answer.holder ?? (await readLockRecord(layout)));
      if (mode === 'abstract' || attempt >= 3) throw new HomeLockedError(layout, await readLockRecord(layout));
      await fs.rm(address, { force: true });
    }
  }
}

type Answer = { kind: 'held'; holder: LockHolder | undefined } | { kind: 'stale' };

/** Connects to the lock socket: a listener answers with its record; a refused connection is a stale file. */
function askHolder(address: string): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = net.connect(address);
    let text = '';
    const timer = setTimeout(() => finish({ kind: 'held', holder: undefined }), 2000);
    const finish = (answer: Answer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 64 * 1024) finish({ kind: 'held', holder: undefined });
    });
    socket.on('end', () => finish({ kind: 'held', holder: parseHolder(text) }));
    socket.on('error', (error) => {
      finish(isErrno(error, 'ECONNREFUSED') || isErrno(error, 'ENOENT') ? { kind: 'stale' } : { kind: 'held', holder: undefined });
    });
  });
}

/**
 * The record only names a holder (the socket is the lock): when it cannot be read, or is not the shape
 * a holder writes, the holder goes unnamed — never a pid from a damaged file in a "kill -TERM" hint.
 */
async function readLockRecord(layout: HomePaths): Promise<LockHolder | undefined> {
  const read = await readRecord(lockRecordPath(layout), holderSchema, 64 * 1024);
  return read.status === 'ok' ? read.value : undefined;
}

function parseHolder(text: string): LockHolder | undefined {
  const read = parseRecord(text, holderSchema, 64 * 1024);
  return read.status === 'ok' ? read.value : undefined;
}

async function realHome(layout: HomePaths): Promise<string> {
  try {
    return await fs.realpath(layout.home);
  } catch (error) {
    throw lockIoError(layout.home, error);
  }
}

async function startTokenOf(pid: number): Promise<{ startToken?: string }> {
  const token = await processStartToken(pid);
  return token === undefined ? {} : { startToken: token };
}

function hashOf(home: string): string {
  return createHash('sha256').update(home).digest('hex').slice(0, 32);
}

function abstractAddress(home: string): string {
  return `\0chainvisor-home-${hashOf(home)}`;
}

/** `<state>/lock.sock`, or one in the temp folder when that path is too long for a socket (~104 bytes). */
async function socketFileAddress(layout: HomePaths, home: string): Promise<string> {
  const inState = path.join(layout.stateDir, 'lock.sock');
  if (Buffer.byteLength(inState) <= 100) {
    try {
      await makeFolders(layout.stateDir);
    } catch (error) {
      throw lockIoError(layout.stateDir, error);
    }
    return inState;
  }
  return path.join(os.tmpdir(), `chainvisor-home-${hashOf(home)}.sock`);
}

function lockIoError(where: string, error: unknown): ChainvisorError {
  return new ChainvisorError('CHAINVISOR_LOCK_FAILED', `could not take the home lock at ${where.replace('\0', '@')}: ${(error as Error).message}`, {
    hint: isFsError(error) ? layoutFsError(where, 'use', error).hint : 'check that the home and its cosmovisor/.chainvisor folder are writable by this user',
    cause: error,
  });
}

/** A second `run` on a home that a live chainvisor already supervises. */
class HomeLockedError extends ChainvisorError {
  readonly holder: LockHolder | undefined;

  constructor(layout: HomePaths, holder: LockHolder | undefined) {
    const who =
      holder === undefined
        ? 'another chainvisor (pid unknown)'
        : `another chainvisor (pid ${holder.pid}, version ${holder.version}, running since ${holder.startedAt})`;
    super('CHAINVISOR_HOME_LOCKED', `${who} already supervises ${layout.home}; refusing to start a second one — two nodes of one home would sign twice`, {
      hint:
        holder === undefined
          ? "stop the other chainvisor first (for example 'systemctl stop <unit>'), or point DAEMON_HOME at another home"
          : `stop it first (kill -TERM ${holder.pid}, or 'systemctl stop <unit>'), or point DAEMON_HOME at another home; 'chainvisor status' shows what it is doing`,
    });
    this.name = 'HomeLockedError';
    this.holder = holder;
  }
}
