/**
 * How a download attempt ended, when it failed: an HTTP status or another failure worth another
 * attempt (the two error classes), whether to retry it (classify: the network's own classification,
 * shared/net/failure.ts, plus the statuses), how to say it (describeFailure), and the error an
 * operator finally reads, with the hint for its cause (finalError).
 */
import { CertificateError, classifyFailure, type FailureKind, ProxyStatusError, ProxyUnusableError, retryableStatus } from '../shared/net/index.js';
import { DownloadError } from './errors.js';

/** An HTTP status that ends an attempt. */
export class StatusFailure extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`the server answered ${status}`);
  }
}

/** Anything else worth another attempt (truncated body, a range answer that does not fit). */
export class RetryableFailure extends Error {}

/**
 * `retry`: 5xx, 408, 429, what the network classification retries (resets, timeouts, an answer that
 * is not HTTP, a failed TLS handshake, a proxy that could not reach the server) and the download's
 * own retryable failures.
 * `final`: other 4xx, and what the classification calls final (an untrusted certificate, a proxy that
 * refuses the host).
 * `config`: the operator's setting is wrong (a proxy that cannot be used, or whose certificate does
 * not verify); not retried either, and the hint names the setting.
 * `bug`: not an I/O failure at all; it propagates as it is.
 */
export function classify(error: unknown): FailureKind | 'bug' {
  if (error instanceof StatusFailure) return retryableStatus(error.status) ? 'retry' : 'final';
  if (error instanceof RetryableFailure) return 'retry';
  return classifyFailure(error)?.kind ?? 'bug';
}

export function describeFailure(error: unknown): string {
  if (error instanceof StatusFailure) return `HTTP ${error.status}`;
  if (error instanceof RetryableFailure) return error.message;
  return classifyFailure(error)?.reason ?? (error as Error).message;
}

export function finalError(
  req: { what: string; source: { shown: string } },
  reason: string,
  attempts: number,
  status: number | undefined,
  cause: unknown,
  exhausted: boolean,
  proxy: string | undefined,
): DownloadError {
  let hint: string;
  // Whatever the cause, the node can still be moved on at its height: the release binary, installed by hand.
  const byHand = "; or install the release binary by hand with 'chainvisor add-upgrade <name> <path>' and start chainvisor again";
  const named = cause instanceof ProxyStatusError || cause instanceof ProxyUnusableError || (cause instanceof CertificateError && cause.proxy !== undefined);
  const via = proxy === undefined || named ? '' : ` (through the proxy ${proxy})`;
  if (cause instanceof ProxyUnusableError) {
    hint = `fix ${cause.variable} (http://host:port, https://host:port or socks5://host:port, with user:password@ before the host when the proxy needs them), then start chainvisor again${byHand}`;
  } else if (cause instanceof CertificateError && cause.proxy !== undefined) {
    hint =
      `the proxy's own certificate: if it is genuine but issued by a private or company CA, install that CA in this host's trust store or name its PEM file in SSL_CERT_FILE (or a folder in SSL_CERT_DIR); ` +
      `otherwise check the proxy's address in ${cause.variable ?? 'HTTPS_PROXY'} (an http proxy is http://host:port); not retried${byHand}`;
  } else if (cause instanceof CertificateError) {
    hint =
      "if the certificate is genuine but issued by a private or company CA (a TLS-inspecting proxy's, a mirror's), install that CA in this host's " +
      'trust store, or name its PEM file in SSL_CERT_FILE (or a folder of them in SSL_CERT_DIR) in the environment chainvisor runs with; ' +
      `otherwise fix the server or the URL (expired, self-signed, wrong name); not retried${byHand}`;
  } else if (cause instanceof ProxyStatusError && !exhausted) {
    hint = `the proxy refuses to connect to this host: ask its administrators to allow it, or list the host in NO_PROXY if it can be reached directly; not retried${byHand}`;
  } else if (status !== undefined && !exhausted) {
    hint =
      status === 404 || status === 410
        ? `the URL in the plan's Info is wrong or the file was removed from the server; not retried (a 4xx answer does not change by asking again)${byHand}`
        : status === 401 || status === 403
          ? `the server refuses access to the file; check the URL and any credentials in it; not retried${byHand}`
          : `the server refused the request; not retried${byHand}`;
  } else {
    const network = proxy === undefined ? "this host's network" : `this host's network, the proxy ${proxy} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)`;
    hint = `retried with backoff (CHAINVISOR_DOWNLOAD_RETRIES, CHAINVISOR_DOWNLOAD_TIMEOUT); check ${network} and the server${byHand}`;
  }
  return new DownloadError(req.what, req.source.shown, `${reason}${via}`, { attempts, ...(status === undefined ? {} : { status }), hint, cause });
}
