/**
 * How a download attempt ended, when it failed: an HTTP status or another failure worth another
 * attempt (the two error classes), whether to retry it (classify), how to say it (describeFailure), and
 * the error an operator finally reads, with the hint for its cause (finalError).
 */
import { CertificateError, isNetworkError, isNotHttp, ProxyStatusError, TransportTimeout } from '../shared/net/index.js';
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
 * `retry`: the network's doing (resets, refusals, timeouts, truncation, an answer that is not HTTP — a
 * proxy or a middlebox that garbles the response is the network's doing too), 5xx, 408, 429, and a
 * proxy that could not reach the server (5xx to CONNECT).
 * `final`: asking again cannot help (other 4xx, an untrusted certificate, a proxy that refuses).
 * `bug`: not an I/O failure at all; it propagates as it is.
 */
export function classify(error: unknown): 'retry' | 'final' | 'bug' {
  if (error instanceof StatusFailure) return retryableStatus(error.status) ? 'retry' : 'final';
  if (error instanceof ProxyStatusError) return retryableStatus(error.status) ? 'retry' : 'final';
  if (error instanceof RetryableFailure) return 'retry';
  if (error instanceof CertificateError) return 'final';
  return isNetworkError(error) ? 'retry' : 'bug';
}

export function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

export function describeFailure(error: unknown): string {
  if (error instanceof StatusFailure) return `HTTP ${error.status}`;
  if (error instanceof RetryableFailure || error instanceof TransportTimeout || error instanceof CertificateError || error instanceof ProxyStatusError) {
    return error.message;
  }
  const code = (error as { code?: string }).code;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `the connection dropped (${(error as Error).message})`;
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'the connection closed before the body reached its Content-Length';
  if (isNotHttp(error)) return `the server's answer is not valid HTTP (${code === undefined ? '' : `${code}: `}${(error as Error).message})`;
  return code === undefined ? (error as Error).message : `${code}: ${(error as Error).message}`;
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
  const via = proxy === undefined || cause instanceof ProxyStatusError ? '' : ` (through the proxy ${proxy})`;
  if (cause instanceof CertificateError) {
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
