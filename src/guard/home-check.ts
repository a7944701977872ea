/**
 * The home check (issue #43): the node must live in DAEMON_HOME, or chainvisor watches and guards
 * files the node never uses. Before each start its `--home` is compared with DAEMON_HOME; a few
 * seconds after, the files it holds open (Linux). Elsewhere: a warning and `home-mismatch`, once per
 * run and home; with a local validator key there, no start (or a stop) and exit 84.
 * Why, and the rest of its rules: docs/cosmovisor.md#the-nodes-home.
 */
import { ChainvisorError } from '../shared/errors/index.js';
import { describeHomeMismatch, type EventBus, type HomeMismatch } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import { readOpenFiles } from '../shared/proc/index.js';
import type { HomePaths } from './home-paths.js';
import { type ElsewhereHome, homeByFlag, homeByOpenFiles, localKeyOf } from './home-seen.js';

/** When the open files are read after a start: until one shows a data file (a node opens its databases within seconds). */
const lookAfterMs = [3000, 10_000, 30_000];

export interface HomeCheckOptions {
  layout: HomePaths;
  logger: Logger;
  events: EventBus;
}

export interface HomeCheck {
  /** Before a start: throws CHAINVISOR_HOME_MISMATCH (84) when the node's `--home` is another home with a local validator key. */
  beforeStart(args: readonly string[]): Promise<void>;
  /** After the spawn: reads the node's open files a few times until they show its data folder; `onRefused` stops a validator found elsewhere. */
  watch(node: { pid: number | undefined; exited: Promise<unknown> }, onRefused: (error: ChainvisorError) => void): void;
  close(): void;
}

export function createHomeCheck(options: HomeCheckOptions): HomeCheck {
  const { layout, logger, events } = options;
  /** The homes already reported in this run: a restart does not page again. */
  const reported = new Set<string>();
  /** This start's `--home` named another home: already reported, its files need no look. */
  let byFlag = false;
  const timers = new Set<NodeJS.Timeout>();
  let confirmed = false;

  /** Reports a home found elsewhere; the error when it has a local key (the caller refuses). */
  const found = async (elsewhere: ElsewhereHome, seen: HomeMismatch['seen']): Promise<ChainvisorError | undefined> => {
    const key = await localKeyOf(elsewhere.nodeHome);
    const mismatch: HomeMismatch = { ...elsewhere, seen, refused: key !== undefined };
    if (key !== undefined || !reported.has(elsewhere.nodeHome)) {
      reported.add(elsewhere.nodeHome);
      events.emit('home-mismatch', { text: describeHomeMismatch(mismatch), data: { ...mismatch } });
    }
    return key === undefined ? undefined : refusal(mismatch, key);
  };

  const look = async (pid: number, exited: () => boolean, onRefused: (error: ChainvisorError) => void, attempt: number): Promise<void> => {
    if (exited()) return;
    const began = performance.now();
    const files = await readOpenFiles(pid);
    if (files === undefined || exited()) return; // no /proc here, or the node is gone: nothing to say
    const seen = await homeByOpenFiles(layout, files);
    const fields = { pid, files: files.length, ms: Math.round((performance.now() - began) * 10) / 10 };
    if (seen === undefined) return schedule(pid, exited, onRefused, attempt + 1);
    if (seen === 'same') {
      // Said once per run: the check ran and found the node where chainvisor looks.
      logger[confirmed ? 'debug' : 'info'](fields, `the node's open files show its data folder in DAEMON_HOME (${layout.dataDir})`);
      confirmed = true;
      return;
    }
    const error = await found(seen, 'open-files');
    if (error !== undefined && !exited()) onRefused(error);
  };

  const schedule = (pid: number, exited: () => boolean, onRefused: (error: ChainvisorError) => void, attempt: number): void => {
    const wait = lookAfterMs[attempt];
    if (wait === undefined) return;
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        look(pid, exited, onRefused, attempt).catch((error: unknown) =>
          logger.warn({ err: error }, `cannot read the node's open files to check its home: ${(error as Error).message}`),
        );
      },
      wait - (lookAfterMs[attempt - 1] ?? 0),
    );
    timer.unref();
    timers.add(timer);
  };

  return {
    async beforeStart(args) {
      const elsewhere = await homeByFlag(layout, args);
      byFlag = elsewhere !== undefined;
      if (elsewhere === undefined) return;
      const error = await found(elsewhere, 'flag');
      if (error !== undefined) throw error;
    },
    watch(node, onRefused) {
      if (byFlag || node.pid === undefined) return;
      const pid = node.pid;
      let done = false;
      const end = (): void => void (done = true);
      node.exited.then(end, end);
      schedule(pid, () => done, onRefused, 0);
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

function refusal(m: HomeMismatch, keyFile: string): ChainvisorError {
  const how = m.seen === 'flag' ? `the node is given --home ${m.nodeHome}` : `the running node's files (${m.file ?? '?'}) show its home is ${m.nodeHome}`;
  const outcome = m.seen === 'flag' ? 'the node was not started' : 'the node was stopped';
  return new ChainvisorError(
    'CHAINVISOR_HOME_MISMATCH',
    `${how}, not DAEMON_HOME ${m.daemonHome}, and it signs there with a local validator key (${keyFile}): the sign guard and the twin check would guard DAEMON_HOME's signing state, not the one the node writes, and upgrades would never be applied; ${outcome}`,
    {
      hint: `pass --home ${m.daemonHome} to the node ('chainvisor run start --home ${m.daemonHome} …'), or set DAEMON_HOME=${m.nodeHome} so that chainvisor watches and guards the files the node uses`,
    },
  );
}
