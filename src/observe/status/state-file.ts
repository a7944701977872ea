/**
 * How `chainvisor status` asks a running `run`: `run` keeps its live state in
 * `$DAEMON_HOME/cosmovisor/.chainvisor/status.json`, rewritten atomically (temp file + rename) a
 * moment after each change, and `status` reads it, trusting it only while the pid inside is alive.
 * A file rather than a socket or the HTTP endpoint: it works with the endpoint off (the default), needs
 * no port, no token and no cleanup after a crash (a dead pid marks it stale), costs nothing at idle,
 * and file permissions already decide who may read the home.
 */
import path from 'node:path';

import * as v from 'valibot';

import type { Layout } from '../../home/layout/index.js';
import { isErrno } from '../../shared/errors/index.js';
import { readBounded } from '../../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';
import { parseJson } from '../../shared/json.js';
import type { Logger } from '../../shared/log.js';
import type { LiveState, LiveTracker } from './live.js';

/** What `status` relies on before it trusts the rest: a live state naming its `run`'s pid. */
const statusFileSchema = v.object({ live: v.looseObject({ chainvisor: v.looseObject({ pid: v.pipe(v.number(), v.safeInteger()) }) }) });

function statusFilePath(layout: Layout): string {
  return path.join(layout.stateDir, 'status.json');
}

/** The live state a `run` left, and whether that `run` is still alive; undefined when there is none. */
export async function readStatusFile(layout: Layout): Promise<{ live: LiveState; alive: boolean } | undefined> {
  // Only a regular file of at most 1 MiB: anything else at the path says nothing about a live run.
  const read = await readBounded(statusFilePath(layout), 1024 * 1024);
  if (read.status !== 'ok') return undefined;
  const parsed = parseJson(read.text, statusFileSchema);
  if (!parsed.ok) return undefined; // a torn or foreign file says nothing about a live run
  // The rest is as `run` wrote it (writeStatusFile below), read as the document it renders.
  const live = parsed.value.live as unknown as LiveState;
  return { live, alive: processAlive(live.chainvisor.pid) };
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, 'EPERM');
  }
}

export interface StatusFileWriter {
  /** Writes the final state and stops. */
  close(): Promise<void>;
}

/** Rewrites the status file after changes: within 100 ms of a stage event, at most once a second for ticks. */
export function writeStatusFile(options: { layout: Layout; tracker: LiveTracker; logger: Logger }): StatusFileWriter {
  const file = statusFilePath(options.layout);
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let lastWrite = 0;
  let warned = false;
  const write = (): Promise<void> => {
    timer = undefined;
    lastWrite = Date.now();
    const text = `${JSON.stringify({ live: options.tracker.state() })}\n`;
    writing = writing
      .then(async () => {
        await makeFolders(options.layout.stateDir);
        await writeFileAtomic(file, text, 0o644);
      })
      .catch((error: unknown) => {
        if (warned) return;
        warned = true;
        options.logger.warn({ file, err: error }, "could not write the status file; 'chainvisor status' will not see this run");
      });
    return writing;
  };
  options.tracker.onChange((urgent) => {
    if (timer !== undefined) return;
    const wait = urgent ? 100 : Math.max(100, 1000 - (Date.now() - lastWrite));
    timer = setTimeout(() => void write(), wait);
    timer.unref();
  });
  void write();
  return {
    async close() {
      clearTimeout(timer);
      await write();
    },
  };
}
