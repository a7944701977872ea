/**
 * One webhook delivery attempt: a JSON POST over node:http(s) with a hard time limit, so a receiver
 * that accepts the connection and never answers costs one timeout, not a stuck queue. Basic-auth
 * credentials in the URL are sent as an Authorization header, as a browser would.
 */
import http from 'node:http';
import https from 'node:https';

export type PostOutcome = { ok: true; status: number } | { ok: false; retry: boolean; reason: string };

export function postJson(url: URL, body: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<PostOutcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
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
    const client = target.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (outcome: PostOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = client.request(target, { method: 'POST', headers, agent: false, signal: options.signal }, (response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      response.on('error', () => undefined);
      if (status >= 200 && status < 300) finish({ ok: true, status });
      else finish({ ok: false, retry: status >= 500 || status === 408 || status === 429, reason: `HTTP ${status}` });
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish({ ok: false, retry: true, reason: `no answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      finish({ ok: false, retry: !options.signal.aborted, reason: error.code ?? error.message });
    });
    request.end(body);
  });
}
