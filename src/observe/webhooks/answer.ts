/**
 * One POST to a chat or paging service, and what its answer means: delivered, or failed with a reason
 * and whether to retry — after the wait the service asks for on a 429 (Slack's `Retry-After` header,
 * Discord's `retry_after`, Telegram's `parameters.retry_after`, both in seconds). The answer's body is
 * read (at most 16 KiB) because the services explain themselves there. Reasons are scrubbed of the
 * channel's secrets by the caller; the URL is never part of one.
 */
import type { HttpClient } from '../../shared/net/index.js';
import { reasonOf, retryable } from './post.js';

export type Answer = { ok: true; status: number } | { ok: false; retry: boolean; reason: string; retryAfterMs?: number };

const maxBody = 16 * 1024;

export async function postForAnswer(client: HttpClient, url: URL, body: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<Answer> {
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'chainvisor' };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  try {
    const response = await client.request(url, { method: 'POST', headers, body, signal: AbortSignal.any([options.signal, timeout.signal]) });
    const text = await readSome(response.body);
    const status = response.statusCode;
    const json = parseJson(text);
    // Telegram answers {"ok": false, …} with its error; a 2xx that says so is not a delivery.
    if (status >= 200 && status < 300 && json?.ok !== false) return { ok: true, status };
    const reason = `HTTP ${status}${text.trim() === '' ? '' : `: ${oneLine(text)}`}`;
    if (status === 429) {
      const seconds = Number(response.headers['retry-after'] ?? json?.retry_after ?? (json?.parameters as Record<string, unknown> | undefined)?.retry_after);
      return { ok: false, retry: true, reason, ...(Number.isFinite(seconds) && seconds >= 0 ? { retryAfterMs: Math.ceil(seconds * 1000) } : {}) };
    }
    return { ok: false, retry: status >= 500 || status === 408, reason };
  } catch (error) {
    if (timeout.signal.aborted && !options.signal.aborted) return { ok: false, retry: true, reason: `no answer within ${options.timeoutMs} ms` };
    return { ok: false, retry: !options.signal.aborted && retryable(error), reason: reasonOf(error) };
  } finally {
    clearTimeout(timer);
  }
}

async function readSome(body: NodeJS.ReadableStream & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < maxBody) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).subarray(0, maxBody).toString('utf8');
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
