/**
 * One delivery attempt, for the webhooks and every alert channel: a JSON POST through chainvisor's
 * HTTP client (the environment's proxy, the host's CAs) with a hard time limit, so a receiver that
 * never answers costs one timeout, not a stuck queue; URL credentials go as Basic auth, never into a
 * reason. Its answer is delivered, retry (after the wait a 429 asks for), or give up. A webhook's
 * status says all (`read: 'status'`: its body is never read); a chat service explains itself in at
 * most 16 KiB of body (`read: 'answer'`: the reason, Telegram's `"ok": false` under a 2xx, a 429's
 * `retry_after`). A 2xx whose body stalls is a delivery. Reasons are scrubbed of secrets by the caller.
 */
import * as v from 'valibot';

import { parseJson } from '../../shared/json.js';
import {
  basicAuthorization,
  classifyFailure,
  dropBody,
  type HttpClient,
  parseRetryAfter,
  readSome,
  retryableStatus,
  splitCredentials,
} from '../../shared/net/index.js';
import { redactText } from '../../shared/redact.js';

export type Answer = { ok: true; status: number } | { ok: false; retry: boolean; reason: string; retryAfterMs?: number };

export interface PostOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** What of the receiver's answer is read: its status only (webhooks), or its body too (alert channels). */
  read: 'status' | 'answer';
}

const maxBody = 16 * 1024;

export async function postJson(client: HttpClient, url: URL, body: string, options: PostOptions): Promise<Answer> {
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
    if (options.read === 'status') {
      await dropBody(response.body, 0);
      return status >= 200 && status < 300 ? { ok: true, status } : { ok: false, retry: retryableStatus(status), reason: `HTTP ${status}` };
    }
    const text = (await readSome(response.body, maxBody)).toString('utf8');
    const json = parseAnswer(text);
    // Telegram answers {"ok": false, …} with its error; a 2xx that says so is not a delivery.
    if (status >= 200 && status < 300 && json?.ok !== false) return { ok: true, status };
    const reason = `HTTP ${status}${text.trim() === '' ? '' : `: ${oneLine(text)}`}`;
    if (status !== 429) return { ok: false, retry: retryableStatus(status), reason };
    // Slack's Retry-After header, else Discord's `retry_after`, else Telegram's `parameters.retry_after`.
    const header = response.headers['retry-after'];
    const retryAfterMs = parseRetryAfter(
      (Array.isArray(header) ? header[0] : header) ?? json?.retry_after ?? (json?.parameters as Record<string, unknown> | undefined)?.retry_after,
    );
    return { ok: false, retry: true, reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  } catch (error) {
    if (status !== undefined && status >= 200 && status < 300 && !options.signal.aborted) return { ok: true, status };
    if (timeout.signal.aborted && !options.signal.aborted) return { ok: false, retry: true, reason: `no answer within ${options.timeoutMs} ms` };
    return failedAttempt(error, options.signal.aborted);
  } finally {
    clearTimeout(timer);
  }
}

/** The URL to POST to (without credentials) and the headers of a JSON body, credentials as Basic auth. */
function jsonPost(url: URL, body: string): { ok: true; url: URL; headers: Record<string, string> } | { ok: false; problem: string } {
  const split = splitCredentials(url);
  if (!split.ok) return split;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'chainvisor',
  };
  if (split.credentials !== undefined) headers.authorization = basicAuthorization(split.credentials);
  return { ok: true, url: split.url, headers };
}

/** A failed attempt in the shared classification's words; retried only when it is the network's doing and chainvisor is not stopping. */
function failedAttempt(error: unknown, stopping: boolean): { ok: false; retry: boolean; reason: string } {
  const failure = classifyFailure(error);
  if (failure === undefined)
    return { ok: false, retry: false, reason: `unexpected error: ${redactText(error instanceof Error ? error.message : String(error))}` };
  return { ok: false, retry: !stopping && failure.kind === 'retry', reason: failure.reason };
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
