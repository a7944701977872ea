/**
 * Things a careless operator or a broken disk leaves where chainvisor expects a file: a FIFO with no
 * writer, a link to /dev/zero, a Unix socket, a symbolic link loop, a folder, a folder no one may read.
 * And the check every test of them makes: the command ends by itself, or at a stop signal, and does not
 * hang (the bound is generous: the point is that it ends, not how fast).
 */
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export type NotFileKind = 'fifo' | 'zero' | 'socket' | 'loop' | 'folder';

/** What the reason given by chainvisor says for each kind. */
export const notFileReason: Record<NotFileKind, RegExp> = {
  fifo: /it is a FIFO, not a regular file/,
  zero: /it is a character device, not a regular file/,
  socket: /it is a socket, not a regular file/,
  loop: /it is a symbolic link loop \(ELOOP\)/,
  folder: /it is a folder, not a regular file/,
};

/** Running as root, permission bits deny nothing: the "permission denied" cases are skipped then. */
export const isRoot = process.getuid?.() === 0;

/**
 * Makes `file` one of the things above (its folder must exist). A socket needs a listener, closed by
 * the returned function (a no-op for the others).
 */
export async function makeNotFile(file: string, kind: NotFileKind): Promise<() => Promise<void>> {
  await fs.rm(file, { recursive: true, force: true });
  switch (kind) {
    case 'fifo':
      execFileSync('mkfifo', [file]);
      break;
    case 'zero':
      await fs.symlink('/dev/zero', file);
      break;
    case 'loop':
      // Two links naming each other by absolute path (a relative name without a slash is skipped unread
      // in a certificate folder, by Go's same-folder rule).
      await fs.rm(`${file}.other`, { force: true });
      await fs.symlink(`${file}.other`, file);
      await fs.symlink(file, `${file}.other`);
      break;
    case 'folder':
      await fs.mkdir(file);
      break;
    case 'socket': {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(file, resolve));
      return () => new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
  return async () => undefined;
}

export interface Ending {
  /** The process ended within `ms`. */
  ended: boolean;
  /** Milliseconds from the call to the end (or to the limit). */
  ms: number;
}

/**
 * Waits at most `ms` for `child` (an execa child) to end; SIGKILLs it when it has not, so that a test
 * that fails does not leave it running. Never a timing assertion: `ms` is many times what it takes.
 */
export async function endsWithin(child: { kill(signal?: NodeJS.Signals): boolean } & PromiseLike<unknown>, ms: number): Promise<Ending> {
  const started = performance.now();
  const ended = await Promise.race([Promise.resolve(child).then(() => true), sleep(ms, false, { ref: false })]);
  if (!ended) {
    child.kill('SIGKILL');
    await child;
  }
  return { ended, ms: Math.round(performance.now() - started) };
}

/**
 * Whether `pid` has `target` open (/proc/<pid>/fd): a process reading /dev/zero behind a link holds it,
 * one that refused the link unopened never does.
 */
export async function holdsOpen(pid: number, target: string): Promise<boolean> {
  const fds = await fs.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const targets = await Promise.all(fds.map((fd) => fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.includes(target);
}

/**
 * A writer's end of the FIFO `file`, once some process has it open (or waits in its open) for reading:
 * undefined before. Held open, it keeps that reader waiting for data; closed, the reader sees the end.
 */
export async function fifoWriter(file: string): Promise<fs.FileHandle | undefined> {
  try {
    return await fs.open(file, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') return undefined; // no reader
    throw error;
  }
}
