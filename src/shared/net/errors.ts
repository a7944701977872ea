/**
 * The failures of an HTTP exchange that callers tell apart: a time limit that ran out (with its
 * phase), a proxy that refused the tunnel or asked for credentials, a certificate that does not
 * verify (named in words, not in Node's: Node's own text ends with advice about its command-line
 * flags, meaningless to an operator of the release executable). undici's errors are translated
 * here, so the download and the webhooks read one vocabulary.
 */
import { UpgradeError } from '../errors/index.js';

/** A time limit that ran out; `code` ETIMEDOUT so it counts as a network failure (retried). */
export class TransportTimeout extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(
    readonly phase: 'connect' | 'headers' | 'body',
    readonly limitMs: number,
  ) {
    const limit = `${limitMs} ms, CHAINVISOR_DOWNLOAD_TIMEOUT`;
    super(
      phase === 'connect'
        ? `connecting timed out (${limit})`
        : phase === 'headers'
          ? `the server sent its response head too slowly (not complete within ${limit})`
          : `the body stalled (no data for ${limit})`,
    );
    this.name = 'TransportTimeout';
  }
}

/** The proxy answered the tunnel (CONNECT) with something other than 200 (407 is ProxyAuthError). */
export class ProxyStatusError extends Error {
  readonly code = 'EPROXYSTATUS';

  constructor(
    readonly status: number,
    /** The proxy, redacted, and the variable that named it: `http://proxy:3128 (HTTPS_PROXY)`. */
    readonly proxy: string,
    readonly target: string,
  ) {
    super(`the proxy ${proxy} answered ${status} when asked to connect to ${target}`);
    this.name = 'ProxyStatusError';
  }
}

/** The proxy answered 407: it needs credentials, or refused the ones given. Not retried. */
export class ProxyAuthError extends UpgradeError {
  declare readonly proxy: string;

  constructor(proxy: string, variable: string, hadCredentials: boolean, target: string) {
    super(
      'ProxyAuthError',
      'CHAINVISOR_PROXY_AUTH_REQUIRED',
      `the proxy ${proxy} (${variable}) answered 407 Proxy Authentication Required for ${target}: ${
        hadCredentials ? 'it refused the credentials given' : 'it needs credentials and none were given'
      }`,
      {
        hint: `${
          hadCredentials ? `check the user and password in ${variable}` : `put the proxy's user and password in ${variable}`
        } (http://user:password@host:port, with characters such as @ : / % percent-encoded), then run the command or start chainvisor again`,
      },
      { proxy },
    );
  }
}

const timeoutPhases: Record<string, TransportTimeout['phase']> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

/** An undici timeout as a TransportTimeout naming the phase; any other error as it is. */
export function asTransportError(error: unknown, timeoutMs: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const phase = typeof code === 'string' ? timeoutPhases[code] : undefined;
  return phase === undefined ? error : new TransportTimeout(phase, timeoutMs);
}

/**
 * undici's failures that are the network's doing (retried like a reset): the other side closed the
 * socket, a body shorter than its Content-Length, the proxy's connection failed.
 */
const networkCodes = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_INFO',
  'UND_ERR_PRX_CONN',
]);

/** True for an error of the connection or of the server's answer (worth another attempt). */
export function isNetworkError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && (networkCodes.has(code) || /^E[A-Z0-9]+$/.test(code) || code === 'ERR_STREAM_PREMATURE_CLOSE')) || isNotHttp(error);
}

/**
 * An answer llhttp cannot parse. undici 8 names it HTTPParserError; its `code` (HPE_*) is often
 * missing (it looks the number up in a table keyed by name), so the name decides.
 */
export function isNotHttp(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return error.name === 'HTTPParserError' || (typeof code === 'string' && code.startsWith('HPE_'));
}

/** The server's (or an https proxy's) certificate does not verify. Not retried: asking again cannot help. */
export class CertificateError extends Error {
  readonly code = 'ECERTIFICATE';

  constructor(
    /** `host:port` whose certificate failed. */
    readonly host: string,
    /** In words, with OpenSSL's code: `it was issued by a certificate authority this host does not trust (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`. */
    readonly problem: string,
    options: { cause: unknown; proxy?: string },
  ) {
    super(`the TLS certificate of ${options.proxy === undefined ? host : `the proxy ${options.proxy}`} does not verify: ${problem}`, { cause: options.cause });
    this.name = 'CertificateError';
  }
}

/** OpenSSL's verification codes, in words an operator can act on. */
const certificateProblems: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'it was issued by a certificate authority this host does not trust',
  UNABLE_TO_GET_ISSUER_CERT: 'it was issued by a certificate authority this host does not trust',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'it was issued by a certificate authority this host does not trust',
  SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a self-signed certificate authority this host does not trust',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet (check this host’s clock)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it does not name this host',
  CERT_REVOKED: 'it was revoked',
  CERT_UNTRUSTED: 'it is not trusted for this purpose',
  CERT_SIGNATURE_FAILURE: 'its signature does not verify',
  UNABLE_TO_DECRYPT_CERT_SIGNATURE: 'its signature does not verify',
};

/** The certificate problem in words when `error` is a TLS verification failure, else undefined. */
export function certificateProblem(error: unknown): string | undefined {
  let current: unknown = error;
  // undici wraps a proxy's certificate failure (SecureProxyConnectionError) around the TLS error.
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      const known = certificateProblems[code];
      if (known !== undefined) return `${known} (${code})`;
      if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) return `it does not verify (${code})`;
    }
    current = current.cause;
  }
  return undefined;
}
