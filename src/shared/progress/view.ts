/**
 * The observer side of progress: turns `download-progress` and `backup-progress` events into what an
 * operator watches. On a terminal, one bar redrawn in place; otherwise (journald, a log file) a log
 * line every 10 % or 5 s — whichever comes first — with bytes, total, rate and ETA, and one at the end.
 * The log lines carry the event's name in `event`, like every stage's line.
 */
import type { Writable } from 'node:stream';

import type { EventBus, SupervisorEvent } from '../events/index.js';
import type { Logger } from '../log.js';
import { formatBytes } from '../units.js';
import type { ProgressData, TransferOutcome } from './emitter.js';
import { formatSeconds } from './format.js';

export interface ProgressViewOptions {
  bus: EventBus;
  logger: Logger;
  /** Draw a bar on this terminal instead of log lines. */
  tty?: Writable & { columns?: number };
  /** Log at least this often (default 5 s) … */
  everyMs?: number;
  /** … and at every this fraction of the total (default 0.1). */
  everyFraction?: number;
  now?: () => number;
}

interface Transfer {
  started: number;
  /** Bytes when the transfer started (a resumed backup or download starts above zero). */
  startBytes: number;
  lastLogAt: number;
  lastLoggedStep: number;
  lastLoggedBytes: number;
  /** The bar reached its total and ended its line. */
  closed: boolean;
}

const kinds = { 'download-progress': 'download', 'backup-progress': 'backup', 'extract-progress': 'extraction' } as const;

export function startProgressView(options: ProgressViewOptions): () => void {
  const everyMs = options.everyMs ?? 5000;
  const fraction = options.everyFraction ?? 0.1;
  const now = options.now ?? Date.now;
  const transfers = new Map<string, Transfer>();

  const onEvent = (event: SupervisorEvent): void => {
    if (!Object.hasOwn(kinds, event.event)) return;
    const data = event.data as Partial<ProgressData> | undefined;
    if (data === undefined || typeof data.bytes !== 'number') return;
    const key = `${event.event}:${data.id ?? ''}`;
    const at = now();
    let transfer = transfers.get(key);
    if (transfer === undefined) {
      transfer = { started: at, startBytes: data.bytes, lastLogAt: -Infinity, lastLoggedStep: -1, lastLoggedBytes: -1, closed: false };
      transfers.set(key, transfer);
    }
    const total = typeof data.total === 'number' && data.total > 0 ? data.total : undefined;
    const elapsed = (at - transfer.started) / 1000;
    const rate = elapsed > 0 ? Math.max(0, data.bytes - transfer.startBytes) / elapsed : 0;
    const eta = total !== undefined && rate > 0 ? (total - data.bytes) / rate : undefined;
    const kind = kinds[event.event as keyof typeof kinds];
    if (data.done) transfers.delete(key);

    // A transfer that did not complete is not "finished": a failed one "stopped"; a cancelled one
    // (chainvisor stopping, which is said once elsewhere) ends without a line of its own, and one that
    // never started (a backup refused for space: its error says so) shows nothing at all.
    const outcome = data.done === true ? (data.outcome ?? 'complete') : undefined;
    if (outcome === 'not-started') return;
    if (options.tty) {
      const complete = data.done === true || (total !== undefined && data.bytes >= total);
      if (transfer.closed) return;
      transfer.closed = complete;
      drawBar(options.tty, { kind, what: data.what ?? '', bytes: data.bytes, total, rate, eta, done: complete, ...(outcome === undefined ? {} : { outcome }) });
      return;
    }
    if (outcome === 'cancelled') return;
    const step = total === undefined ? 0 : Math.floor(data.bytes / total / fraction);
    if (data.done ? transfer.lastLoggedBytes === data.bytes : at - transfer.lastLogAt < everyMs && step <= transfer.lastLoggedStep) return;
    transfer.lastLogAt = at;
    transfer.lastLoggedStep = step;
    transfer.lastLoggedBytes = data.bytes;
    const finished = data.done === true || (total !== undefined && data.bytes >= total);
    const percent = total === undefined ? undefined : Math.min(100, Math.floor((data.bytes / total) * 100));
    options.logger.info(
      {
        event: event.event,
        what: data.what,
        bytes: data.bytes,
        total: total ?? null,
        percent: percent ?? null,
        bytesPerSecond: Math.round(rate),
        etaSeconds: eta === undefined ? null : Math.round(eta),
      },
      '%s %s: %s of %s (%s), %s/s, ETA %s',
      kind,
      // The last event of a transfer that failed, or ended short of its total.
      finished ? (outcome === 'failed' || (total !== undefined && data.bytes < total) ? 'stopped' : 'finished') : 'in progress',
      formatBytes(data.bytes, { steady: true }),
      total === undefined ? 'unknown size' : formatBytes(total, { steady: true }),
      percent === undefined ? '?' : `${percent}%`,
      formatBytes(Math.round(rate), { steady: true }),
      finished ? '0s' : eta === undefined ? '?' : formatSeconds(eta),
    );
  };
  return options.bus.on(onEvent);
}

function drawBar(
  out: Writable & { columns?: number },
  p: { kind: string; what: string; bytes: number; total: number | undefined; rate: number; eta: number | undefined; done: boolean; outcome?: TransferOutcome },
): void {
  const width = 24;
  const ratio = p.total === undefined ? 0 : Math.min(1, p.bytes / p.total);
  const filled = Math.round(ratio * width);
  const bar = p.total === undefined ? '?'.repeat(width) : `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
  const size = `${formatBytes(p.bytes, { steady: true })}${p.total === undefined ? '' : ` / ${formatBytes(p.total, { steady: true })}`}`;
  const tail = p.done
    ? p.outcome === 'cancelled'
      ? 'cancelled'
      : p.outcome === 'failed'
        ? 'stopped'
        : 'done'
    : `ETA ${p.eta === undefined ? '?' : formatSeconds(p.eta)}`;
  let line = `${p.kind} [${bar}] ${Math.floor(ratio * 100)}% ${size} ${formatBytes(Math.round(p.rate), { steady: true })}/s ${tail}`;
  const columns = out.columns ?? 100;
  if (line.length > columns - 1) line = line.slice(0, columns - 1);
  out.write(`\r\u001b[2K${line}${p.done ? '\n' : ''}`);
}
