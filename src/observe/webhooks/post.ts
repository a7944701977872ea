/**
 * One webhook delivery attempt: a JSON POST through chainvisor's HTTP client (so through the proxy
 * the environment names, trusting the host's CAs) with a hard time limit, so a receiver that accepts
 * the connection and never answers costs one timeout, not a stuck queue. Basic-auth credentials in
 * the URL are sent as an Authorization header, as a browser would; they never appear in a reason.
 */
import { CertificateError, certificateProblem, type HttpClient, ProxyAuthError, ProxyStatusError, TransportTimeout } from '../../shared/net/index.js';

export type PostOutcome = { ok: true; status: number } | { ok: false; retry: boolean; reason: string };

export async function postJson(client: HttpClient, url: URL, body: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<PostOutcome> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'chainvisor',
  };
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }
  const target = new URL(url);
  target.username = '';
  target.password = '';
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  try {
    const response = await client.request(target, { method: 'POST', headers, body, signal: AbortSignal.any([options.signal, timeout.signal]) });
    response.body.resume();
    response.body.on('error', () => undefined);
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status };
    return { ok: false, retry: status >= 500 || status === 408 || status === 429, reason: `HTTP ${status}` };
  } catch (error) {
    if (timeout.signal.aborted && !options.signal.aborted) return { ok: false, retry: true, reason: `no answer within ${options.timeoutMs} ms` };
    return { ok: false, retry: !options.signal.aborted && retryable(error), reason: reasonOf(error) };
  } finally {
    clearTimeout(timer);
  }
}

export function retryable(error: unknown): boolean {
  if (error instanceof ProxyAuthError || certificateProblem(error) !== undefined) return false;
  if (error instanceof ProxyStatusError) return error.status >= 500 || error.status === 429;
  return true;
}

export function reasonOf(error: unknown): string {
  if (error instanceof ProxyAuthError || error instanceof ProxyStatusError || error instanceof TransportTimeout) return error.message;
  if (error instanceof CertificateError) return error.message;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
