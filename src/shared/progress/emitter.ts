/**
 * The producer side of progress: a download or a backup calls `update(bytes, total)` as often as it
 * likes (every chunk); at most one event every `intervalMs` (plus the last one) leaves, carrying the
 * bytes since the previous event (`delta`) so a counter (chainvisor_download_bytes_total) can add them
 * up. Rendering — a bar or log lines — is the observer's business (./view.ts), not the producer's.
 */
import type { EventBus, UpgradeRef } from '../events/index.js';

export interface ProgressData {
  /** Bytes done so far (a download that starts over goes back to 0). */
  bytes: number;
  /** Expected total, when known. */
  total: number | undefined;
  /** Bytes transferred since the previous event (never negative). */
  delta: number;
  /** The last event of this transfer. */
  done: boolean;
  /** With `done`: how the transfer ended (absent: complete, for producers that do not say). */
  outcome?: TransferOutcome;
  /** What is transferred, for people: a redacted URL or a folder. */
  what: string;
  /** Tells concurrent transfers apart. */
  id: string;
}

/**
 * A cancelled transfer is chainvisor stopping (said elsewhere, once); a failed one ended short; one
 * `not-started` ended before its first byte — refused (a backup that would not fit) or with nothing to
 * transfer — and its error or its own log line says why.
 */
export type TransferOutcome = 'complete' | 'failed' | 'cancelled' | 'not-started';

export interface ProgressEmitter {
  update(bytes: number, total: number | undefined): void;
  /** Sends the last event (with `done: true` and the outcome, complete unless said); later calls do nothing. */
  finish(outcome?: TransferOutcome): void;
}

let nextId = 1;

export function createProgressEmitter(options: { what: string; emit: (data: ProgressData) => void; intervalMs?: number; now?: () => number }): ProgressEmitter {
  const intervalMs = options.intervalMs ?? 250;
  const now = options.now ?? Date.now;
  const id = `${process.pid}-${nextId++}`;
  let bytes = 0;
  let total: number | undefined;
  let sent = 0;
  let transferred = 0;
  let lastAt = -Infinity;
  let finished = false;
  const send = (done: boolean, outcome?: TransferOutcome): void => {
    lastAt = now();
    const delta = transferred - sent;
    sent = transferred;
    options.emit({ bytes, total, delta, done, ...(outcome === undefined ? {} : { outcome }), what: options.what, id });
  };
  return {
    update(current, newTotal) {
      if (finished) return;
      // A restart from zero (the server sent the whole file again) still counts the new bytes.
      transferred += current >= bytes ? current - bytes : current;
      bytes = current;
      total = newTotal;
      // The last byte is reported at once, so "100 %" shows when the transfer ends, not after what follows it.
      if (now() - lastAt >= intervalMs || (total !== undefined && current >= total)) send(false);
    },
    finish(outcome = 'complete') {
      if (finished) return;
      finished = true;
      send(true, outcome);
    },
  };
}

/**
 * A progress emitter that publishes on the event bus: what a download or a backup passes as its
 * `onProgress(bytes, total)` callback. For a backup:
 *   const progress = progressOnBus({ events, event: 'backup-progress', what: dataDir });
 *   await backupData({ …, onProgress: progress.update }).finally(progress.finish);
 */
export function progressOnBus(options: {
  events: EventBus;
  event: 'download-progress' | 'backup-progress' | 'extract-progress';
  what: string;
  upgrade?: UpgradeRef;
}): ProgressEmitter {
  const verb = { 'download-progress': 'downloading', 'backup-progress': 'backing up', 'extract-progress': 'extracting' }[options.event];
  return createProgressEmitter({
    what: options.what,
    emit: (data) =>
      options.events.emit(options.event, { ...(options.upgrade ? { upgrade: options.upgrade } : {}), text: `${verb} ${options.what}`, data: { ...data } }),
  });
}
