/**
 * A failure that ends chainvisor is sent once an hour, not once per restart: under systemd's
 * Restart=on-failure the same crash, refusal or failed upgrade would page the channels and webhooks at
 * every start. The failures sent are kept in `cosmovisor/.chainvisor/failures-sent.json` (across
 * restarts); the same one (event, code and sentence, numbers aside) within the hour is logged, not sent.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

import * as v from 'valibot';

import type { SupervisorEvent } from '../../shared/events/index.js';
import { readRecord } from '../../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';
import type { Logger } from '../../shared/log.js';

const failuresSentFile = 'failures-sent.json';
const hourMs = 3_600_000;

const sentSchema = v.array(v.strictObject({ failure: v.pipe(v.string(), v.hexadecimal()), event: v.string(), at: v.pipe(v.string(), v.isoTimestamp()) }));
type Sent = v.InferOutput<typeof sentSchema>[number];

export interface FailureRepeats {
  /** Whether `event` is sent; decided once per event, so the webhooks and every channel agree. */
  allows(event: SupervisorEvent): boolean;
  /** Waits for the record's last write. */
  settled(): Promise<void>;
}

/** The failure `event` is, when it ends chainvisor (a restart loop would repeat it); undefined otherwise. */
function endingFailure(event: SupervisorEvent): string | undefined {
  const data = event.data ?? {};
  const exitFailed = typeof data.code === 'number' ? data.code !== 0 : data.signal !== undefined && data.signal !== null;
  const ends =
    event.event === 'upgrade-failed' ||
    event.event === 'key-in-use' ||
    (event.event === 'twin-unchecked' && data.refused === true) ||
    (event.event === 'home-mismatch' && data.refused === true) ||
    (event.event === 'node-exited' && data.restart === false && exitFailed);
  if (!ends) return undefined;
  // Heights and counts change from one start to the next; the failure does not.
  const what = [event.event, event.upgrade?.name ?? '', String(data.code ?? ''), String(data.signal ?? ''), event.text.replace(/\d+/g, '#')];
  return createHash('sha256').update(JSON.stringify(what)).digest('hex');
}

export async function loadFailureRepeats(options: { stateDir: string; logger: Logger; windowMs?: number }): Promise<FailureRepeats> {
  const { stateDir, logger } = options;
  const windowMs = options.windowMs ?? hourMs;
  const file = path.join(stateDir, failuresSentFile);
  const read = await readRecord(file, sentSchema, 64 * 1024);
  if (read.status === 'damaged')
    logger.warn({ file, reason: read.reason }, 'the record of failures sent %s cannot be read (%s): it begins again', file, read.reason);
  let sent: Sent[] = read.status === 'ok' ? read.value : [];
  const decided = new WeakMap<SupervisorEvent, boolean>();
  let writing = Promise.resolve();

  function decide(event: SupervisorEvent): boolean {
    const failure = endingFailure(event);
    if (failure === undefined) return true;
    const now = event.time;
    sent = sent.filter((s) => now - Date.parse(s.at) < windowMs && Date.parse(s.at) <= now);
    const before = sent.find((s) => s.failure === failure);
    if (before !== undefined) {
      const until = new Date(Date.parse(before.at) + windowMs).toISOString();
      logger.info(
        { notify: event.event, sentAt: before.at, until },
        '%s not sent to the webhooks and alert channels: the same failure was sent at %s; it is sent again after %s',
        event.event,
        before.at,
        until,
      );
      return false;
    }
    sent.push({ failure, event: event.event, at: new Date(now).toISOString() });
    const text = `${JSON.stringify(sent, null, 2)}\n`;
    writing = writing.then(() => write(file, text, logger));
    return true;
  }

  return {
    allows(event) {
      let allowed = decided.get(event);
      if (allowed === undefined) decided.set(event, (allowed = decide(event)));
      return allowed;
    },
    settled: () => writing,
  };
}

async function write(file: string, text: string, logger: Logger): Promise<void> {
  try {
    await makeFolders(path.dirname(file));
    await writeFileAtomic(file, text);
  } catch (error) {
    // Alerts are never held back by their record: the next restart may send this failure again.
    logger.warn({ file, err: error }, 'the record of failures sent %s could not be written: a restart may send the same failure again', file);
  }
}
