/**
 * The one classification of a failed HTTP exchange, shared by downloads, the Info fetch, webhooks
 * and the alert channels (and the words the plan reads over RPC give for a failure): `retry` (the
 * network's doing, worth another attempt), or `final` (asking again cannot help).
 * Why, and the rest of its rules: docs/design/downloads.md#sharednetfailurets.
 */
import { redactText } from '../redact.js';
import { CertificateError, ProxyAuthError, ProxyStatusError, ProxyUnusableError, TransportTimeout } from './errors.js';

export type FailureKind = 'retry' | 'final' | 'config';

export interface Failure {
  kind: FailureKind;
  /** What happened, for a log line or an error message. */
  reason: string;
}

export function classifyFailure(error: unknown): Failure | undefined {
  const failure = classify(error);
  return failure === undefined ? undefined : { kind: failure.kind, reason: redactText(failure.reason) };
}

function classify(error: unknown): Failure | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error instanceof TransportTimeout) return { kind: 'retry', reason: error.message };
  if (error instanceof CertificateError) return { kind: error.proxy === undefined ? 'final' : 'config', reason: error.message };
  if (error instanceof ProxyAuthError || error instanceof ProxyUnusableError) return { kind: 'config', reason: error.message };
  if (error instanceof ProxyStatusError) return { kind: retryableStatus(error.status) ? 'retry' : 'final', reason: error.message };
  const code = (error as Error & { code?: unknown }).code;
  if (isNotHttp(error)) return { kind: 'retry', reason: `the answer is not valid HTTP (${typeof code === 'string' ? `${code}: ` : ''}${error.message})` };
  if (typeof code !== 'string') return undefined;
  const phase = timeoutPhases.get(code);
  if (phase !== undefined) return { kind: 'retry', reason: `${phase} (${code})` };
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    const limit = process.getBuiltinModule('node:http').maxHeaderSize;
    return { kind: 'retry', reason: `the response head is larger than ${limit / 1024} KiB, more than an HTTP server sends (UND_ERR_HEADERS_OVERFLOW)` };
  }
  const tls = tlsFailure(error, code);
  if (tls !== undefined) return { kind: 'retry', reason: tls };
  const socks = /^UND_ERR_SOCKS5_REPLY_(\d+)$/.exec(code);
  if (socks !== null) return socksReply(Number(socks[1]));
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return { kind: 'retry', reason: `the connection dropped (${code}: ${error.message})` };
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return { kind: 'retry', reason: 'the connection closed before the body reached its Content-Length' };
  if (networkCodes.has(code) || /^E[A-Z0-9_]+$/.test(code)) return { kind: 'retry', reason: `${code}: ${error.message}` };
  return undefined;
}

export function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** undici's time limits, when they reach a caller untranslated (a body read outside the download's loop). */
const timeoutPhases = new Map([
  ['UND_ERR_CONNECT_TIMEOUT', 'connecting timed out'],
  ['UND_ERR_HEADERS_TIMEOUT', 'the server sent its response head too slowly'],
  ['UND_ERR_BODY_TIMEOUT', 'the body stalled'],
]);

/**
 * undici's failures that are the network's doing besides Node's `E…` codes: the other side closed
 * the socket, the proxy's connection failed, a body cut short.
 */
const networkCodes = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'UND_ERR_INFO', 'UND_ERR_PRX_CONN', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * An answer llhttp cannot parse. undici 8 names it HTTPParserError; its `code` (HPE_*) is often
 * missing (it looks the number up in a table keyed by name), so the name decides.
 */
function isNotHttp(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return error.name === 'HTTPParserError' || (typeof code === 'string' && code.startsWith('HPE_'));
}

/**
 * A TLS handshake that failed for another reason than the certificate (that one is a
 * CertificateError): OpenSSL's `ERR_SSL_*` and Node's `ERR_TLS_*`, in words. Node's message is
 * OpenSSL's whole error line; its `reason` is the part worth reading.
 */
function tlsFailure(error: Error, code: string): string | undefined {
  if (!code.startsWith('ERR_SSL_') && !code.startsWith('ERR_TLS_')) return undefined;
  const reason = (error as Error & { reason?: unknown }).reason;
  const said = typeof reason === 'string' ? reason : error.message;
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' || code === 'ERR_SSL_HTTP_REQUEST')
    return `the TLS handshake failed: what answered does not speak TLS (an http port, or a proxy that garbles the tunnel) (${code}: ${said})`;
  return `the TLS handshake failed (${code}: ${said})`;
}

/** RFC 1928's replies to CONNECT: the proxy's rules and what it cannot do are final; the rest is the network. */
function socksReply(reply: number): Failure {
  const words: Record<number, string> = {
    1: 'a general failure of the proxy',
    2: "the proxy's rules do not allow this host",
    3: 'the network is unreachable from the proxy',
    4: 'the host is unreachable from the proxy',
    5: 'the host refused the connection',
    6: 'the connection timed out at the proxy',
    7: 'the proxy does not support CONNECT',
    8: 'the proxy does not support this kind of address',
  };
  return {
    kind: reply === 2 || reply === 7 || reply === 8 ? 'final' : 'retry',
    reason: `the SOCKS5 proxy could not connect: ${words[reply] ?? 'an unknown reply'} (reply ${reply})`,
  };
}
