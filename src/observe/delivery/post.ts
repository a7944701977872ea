/**
 * One webhook delivery attempt: a JSON POST through chainvisor's HTTP client (so through the proxy
 * the environment names, trusting the host's CAs) with a hard time limit, so a receiver that accepts
 * the connection and never answers costs one timeout, not a stuck queue. Basic-auth credentials in
 * the URL are sent as an Authorization header, as a browser would; they never appear in a reason.
 * The receiver's answer is never read: its status says all, and a body that never ends costs nothing.
 * A failure is retried only when the shared classification (shared/net/failure.ts) calls it the
 * network's doing.
 */
import { basicAuthorization, classifyFailure, dropBody, type HttpClient, splitCredentials } from '../../shared/net/index.js';
import { redactText } from '../../shared/redact.js';

export type PostOutcome = { ok: true; status: number } | { ok: false; retry: boolean; reason: string };

export async function postJson(client: HttpClient, url: URL, body: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<PostOutcome> {
  const prepared = jsonPost(url, body);
  if (!prepared.ok) return { ok: false, retry: false, reason: prepared.problem };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  try {
    const response = await client.request(prepared.url, {
      method: 'POST',
      headers: prepared.headers,
      body,
      signal: AbortSignal.any([options.signal, timeout.signal]),
    });
    await dropBody(response.body, 0);
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status };
    return { ok: false, retry: status >= 500 || status === 408 || status === 429, reason: `HTTP ${status}` };
  } catch (error) {
    if (timeout.signal.aborted && !options.signal.aborted) return { ok: false, retry: true, reason: `no answer within ${options.timeoutMs} ms` };
    return failedAttempt(error, options.signal.aborted);
  } finally {
    clearTimeout(timer);
  }
}

/** The URL to POST to (without credentials) and the headers of a JSON body, credentials as Basic auth. */
export function jsonPost(url: URL, body: string): { ok: true; url: URL; headers: Record<string, string> } | { ok: false; problem: string } {
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

/** A failed attempt in the classification's words; retried only when it is the network's doing and chainvisor is not stopping. */
export function failedAttempt(error: unknown, stopping: boolean): { ok: false; retry: boolean; reason: string } {
  const failure = classifyFailure(error);
  if (failure === undefined)
    return { ok: false, retry: false, reason: `unexpected error: ${redactText(error instanceof Error ? error.message : String(error))}` };
  return { ok: false, retry: !stopping && failure.kind === 'retry', reason: failure.reason };
}
