/**
 * Detection: notices the node writing `$DAEMON_HOME/data/upgrade-info.json`.
 * Why, and the rest of its rules: docs/design/upgrade.md#watcherhalt-watchts.
 */
import path from 'node:path';

import { type FSWatcher, watch } from 'chokidar';

import { type Plan, readUpgradeInfo, upgradeInfoError } from '../chain/index.js';
import { backoffMs } from '../shared/backoff.js';
import { pollStat } from '../shared/fsread/index.js';
import type { Logger } from '../shared/log.js';
import { type FolderHint, watchFolderHint } from './halt-hint.js';

export interface WatchOptions {
  /** `$DAEMON_HOME`; must exist. `data/` may appear later. */
  home: string;
  /** `$DAEMON_HOME/data/upgrade-info.json`. */
  file: string;
  mode: 'auto' | 'poll';
  pollIntervalMs: number;
  logger: Logger;
  /** Called once for each new, valid content of the file. */
  onPlan: (plan: Plan) => void;
  /** Called once for each new content that is not a valid plan (once it has settled); logs when absent. */
  onInvalid?: (reason: string, text: string) => void;
  /** How long a file that does not parse may stay that way before it is reported invalid. */
  settleMs?: number;
}

export interface HaltFileWatch {
  /** Resolves once file events are live (at once in poll mode). */
  ready: Promise<void>;
  /** Reads the file now; resolves when that read (and any it triggers) is handled. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** The safety net's period while file events arrive (unless DAEMON_POLL_INTERVAL is longer). */
export const safetyNetMs = 1000;

export function watchHaltFile(options: WatchOptions): HaltFileWatch {
  const { file, logger } = options;
  const settleMs = options.settleMs ?? 2000;
  let lastKey: string | undefined; // last content reported, valid or not (with its reason)
  let closed = false;
  let running: Promise<void> | undefined;
  let again = false;
  let retry: NodeJS.Timeout | undefined;
  let unsettledSince: number | undefined;
  let retries = 0;

  async function readOnce(): Promise<void> {
    const read = await readUpgradeInfo(file);
    if (closed) return;
    if (read.status === 'missing') {
      lastKey = undefined;
      unsettledSince = undefined;
      return;
    }
    // A FIFO then a folder have no text: the reason tells them apart.
    const key = read.status === 'valid' ? `valid:${read.text}` : `invalid:${read.reason}:${read.text}`;
    if (key === lastKey) return;
    if (read.status === 'valid') {
      unsettledSince = undefined;
      retries = 0;
      lastKey = key;
      options.onPlan(read.plan);
      return;
    }
    if (read.incomplete) {
      // Possibly half-written: look again soon, and report only if it stays that way.
      unsettledSince ??= Date.now();
      const waited = Date.now() - unsettledSince;
      if (waited < settleMs) {
        clearTimeout(retry);
        retry = setTimeout(() => void check(), backoffMs({ attempt: ++retries, baseMs: 5, maxMs: 250 }));
        return;
      }
    }
    unsettledSince = undefined;
    retries = 0;
    lastKey = key;
    if (options.onInvalid) options.onInvalid(read.reason, read.text);
    else {
      const error = upgradeInfoError(file, read.reason);
      logger.error({ file, reason: read.reason, code: error.code, hint: error.hint }, 'ignoring invalid upgrade-info.json: %s', read.reason);
    }
  }

  function check(): Promise<void> {
    if (closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await readOnce();
        } catch (error) {
          logger.warn({ file, err: error }, 'could not read upgrade-info.json; will try again');
        }
      } while (again && !closed);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  // Polling: a stat per tick, outside JavaScript; the file is read only when something about it changed.
  // Every DAEMON_POLL_INTERVAL while file events are not known to work; the safety net's pace while they do.
  const slowMs = Math.max(options.pollIntervalMs, safetyNetMs);
  let pollMs = options.pollIntervalMs;
  let poll = pollStat(file, pollMs, () => void check());
  const pollEvery = (ms: number) => {
    if (closed || ms === pollMs) return;
    poll.close();
    pollMs = ms;
    poll = pollStat(file, ms, () => void check());
  };

  let watcher: FSWatcher | undefined;
  let hint: FolderHint | undefined;
  const followUps = new Set<NodeJS.Timeout>();
  let ready: Promise<void> = Promise.resolve();
  if (options.mode === 'auto') {
    const dataDir = path.dirname(file);
    const home = path.resolve(options.home);
    // chokidar watches the home, for a `data/` folder created (or replaced) later; the events of the
    // folder's own files come from the hint alone (halt-hint.ts). chokidar inside `data/` as well would
    // handle each of the node's writes there (one a block, for its signing state) in the event loop,
    // and on a switch delays the hint's read by about a millisecond (bench:switch).
    watcher = watch(home, {
      ignoreInitial: true,
      depth: 0,
      ignored: (p: string) => !(p === home || p === dataDir || p === file),
    });
    const onEvent = (p: string) => {
      if (p === file || p === dataDir) void check();
    };
    const armHint = () => {
      hint?.close();
      hint = watchFolderHint(
        dataDir,
        path.basename(file),
        () => void check(),
        (error) => {
          if (closed) return;
          logger.warn(
            { err: error, folder: dataDir, pollIntervalMs: options.pollIntervalMs },
            'file events on the data folder failed; relying on polling until the folder is seen again (set CHAINVISOR_WATCH=poll to silence this)',
          );
          pollEvery(options.pollIntervalMs);
          // The folder may be gone (removed, replaced): look now, as the poll would.
          void check();
        },
      );
      pollEvery(hint.armed ? slowMs : options.pollIntervalMs);
    };
    armHint();
    // A `data/` created after the start is watched only once chokidar has seen it: a file the node
    // writes in that window raises no event of its own. Look again a little later, whatever the poll interval.
    const onDataDir = (p: string) => {
      if (p !== dataDir) return;
      armHint();
      void check();
      for (const ms of [100, 1000]) followUps.add(setTimeout(() => void check(), ms).unref());
    };
    // `data/` removed: its events are gone with it until chokidar sees a new one.
    const onDataDirGone = (p: string) => {
      if (p !== dataDir) return;
      hint?.close();
      pollEvery(options.pollIntervalMs);
      void check();
    };
    watcher.on('add', onEvent).on('change', onEvent).on('unlink', onEvent).on('addDir', onDataDir).on('unlinkDir', onDataDirGone);
    watcher.on('error', (error: unknown) => {
      pollEvery(options.pollIntervalMs);
      logger.warn({ err: error, pollIntervalMs: options.pollIntervalMs }, 'file events failed; relying on polling (set CHAINVISOR_WATCH=poll to silence this)');
    });
    const w = watcher;
    ready = new Promise((resolve) => w.once('ready', () => resolve()));
  }

  void check();

  return {
    ready,
    check,
    async close() {
      closed = true;
      poll.close();
      clearTimeout(retry);
      for (const timer of followUps) clearTimeout(timer);
      hint?.close();
      await watcher?.close();
      await running;
    },
  };
}
