/**
 * One POST to a chat or paging service, and what its answer means: delivered, or failed with a reason
 * and whether to retry — after the wait the service asks for on a 429 (Slack's `Retry-After` header,
 * Discord's `retry_after`, Telegram's `parameters.retry_after`, all in seconds). At most 16 KiB of the
 * answer is read, because the services explain themselves there (and Telegram may say `"ok": false`
 * under a 2xx); the rest is never read, so an endless answer costs nothing. A 2xx whose body stalls
 * is a delivery: the status said so. Reasons are scrubbed of the channel's secrets by the caller.
 */
import * as v from 'valibot';

import { parseJson } from '../../shared/json.js';
import { type HttpClient, readSome } from '../../shared/net/index.js';
import { failedAttempt, jsonPost } from './post.js';

export type Answer = { ok: true; status: number } | { ok: false; retry: boolean; reason: string; retryAfterMs?: number };

const maxBody = 16 * 1024;

export async function postForAnswer(client: HttpClient, url: URL, body: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<Answer> {
  const prepared = jsonPost(url, body);
  if (!prepared.ok) return { ok: false, retry: false, reason: prepared.problem };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  let status: number | undefined;
  try {
    const response = await client.request(prepared.url, {
      method: 'POST',
      headers: prepared.headers,
      body,
      signal: AbortSignal.any([options.signal, timeout.signal]),
    });
    status = response.statusCode;
    const text = (await readSome(response.body, maxBody)).toString('utf8');
    const json = parseAnswer(text);
    // Telegram answers {"ok": false, …} with its error; a 2xx that says so is not a delivery.
    if (status >= 200 && status < 300 && json?.ok !== false) return { ok: true, status };
    const reason = `HTTP ${status}${text.trim() === '' ? '' : `: ${oneLine(text)}`}`;
    if (status === 429) return { ok: false, retry: true, reason, ...retryAfter(response.headers['retry-after'], json) };
    return { ok: false, retry: status >= 500 || status === 408, reason };
  } catch (error) {
    if (status !== undefined && status >= 200 && status < 300 && !options.signal.aborted) return { ok: true, status };
    if (timeout.signal.aborted && !options.signal.aborted) return { ok: false, retry: true, reason: `no answer within ${options.timeoutMs} ms` };
    return failedAttempt(error, options.signal.aborted);
  } finally {
    clearTimeout(timer);
  }
}

/** The wait a 429 asks for, in ms; none when it names no number of seconds (negative, not a number). */
function retryAfter(header: string | string[] | undefined, json: Record<string, unknown> | undefined): { retryAfterMs?: number } {
  const value = Array.isArray(header) ? header[0] : header;
  const seconds = Number(value ?? json?.retry_after ?? (json?.parameters as Record<string, unknown> | undefined)?.retry_after);
  return Number.isFinite(seconds) && seconds >= 0 ? { retryAfterMs: Math.ceil(seconds * 1000) } : {};
}

/** The fields of a service's answer that matter, when it is JSON (a bounded parse: at most 16 KiB arrive). */
const answerShape = v.looseObject({ ok: v.optional(v.unknown()), retry_after: v.optional(v.unknown()), parameters: v.optional(v.unknown()) });

function parseAnswer(text: string): Record<string, unknown> | undefined {
  const parsed = parseJson(text, answerShape, { maxBytes: maxBody, maxDepth: 16 });
  return parsed.ok ? parsed.value : undefined;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
