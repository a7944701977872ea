/**
 * The failures of an HTTP exchange that callers tell apart: a time limit that ran out (with its
 * phase), a proxy that refused the tunnel, asked for credentials or cannot be used, a certificate that
 * does not verify (named in words, not in Node's: Node's own text ends with advice about its
 * command-line flags, meaningless to an operator of the release executable). The client
 * (./client.ts) translates undici's errors into these, and ./failure.ts says of each whether to
 * retry, so the download and the webhooks read one vocabulary.
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

/**
 * The proxy wants credentials, or refused the ones given: an http(s) proxy's 407, a SOCKS5 proxy's
 * refused login or a method chainvisor does not offer. Not retried: the fix is in the variable.
 */
export class ProxyAuthError extends UpgradeError {
  declare readonly proxy: string;

  constructor(
    proxy: string,
    variable: string,
    why: 'missing' | 'refused' | 'method',
    target: string,
    /** What the proxy did: `answered 407 Proxy Authentication Required`, `refused the SOCKS5 login`. */
    answered: string,
  ) {
    const reason = {
      missing: 'it needs credentials and none were given',
      refused: 'it refused the credentials given',
      method: 'it accepts none of the ways chainvisor can log in (none, or a user and password)',
    }[why];
    const scheme = proxy.startsWith('socks5:') ? 'socks5' : 'http';
    super(
      'ProxyAuthError',
      'CHAINVISOR_PROXY_AUTH_REQUIRED',
      `the proxy ${proxy} (${variable}) ${answered} for ${target}: ${reason}`,
      {
        hint: `${
          why === 'refused' ? `check the user and password in ${variable}` : `put the proxy's user and password in ${variable}`
        } (${scheme}://user:password@host:port, with characters such as @ : / % percent-encoded), then run the command or start chainvisor again`,
      },
      { proxy },
    );
  }
}

/**
 * The proxy a URL must go through cannot be used as written: a value that is not a proxy URL (which
 * `chainvisor config` and `run` refuse at start), or a proxy that does not speak the protocol its
 * scheme names. The operator's to fix, so never retried.
 */
export class ProxyUnusableError extends Error {
  readonly code = 'EPROXYUNUSABLE';

  constructor(
    /** `the proxy socks5://gw:1080 (HTTPS_PROXY)`, or `HTTPS_PROXY` when its value is not a URL. */
    readonly proxy: string,
    readonly variable: string,
    readonly problem: string,
    options?: { cause: unknown },
  ) {
    super(`${proxy} cannot be used: ${problem}`, options);
    this.name = 'ProxyUnusableError';
  }
}

const timeoutPhases: Record<string, TransportTimeout['phase']> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

/**
 * An undici timeout as a TransportTimeout naming the phase; a connection that every address of a name
 * refused as one error saying each refusal; any other error as it is.
 */
export function asTransportError(error: unknown, timeoutMs: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const phase = typeof code === 'string' ? timeoutPhases[code] : undefined;
  if (phase !== undefined) return new TransportTimeout(phase, timeoutMs);
  return error instanceof AggregateError && error.message === '' ? attemptsSaid(error, code) : error;
}

/**
 * Node tries each address of a name in turn (`localhost`: ::1, then 127.0.0.1) and, when all fail,
 * throws an AggregateError whose message is empty: what each attempt met is said instead, the code kept.
 */
function attemptsSaid(error: AggregateError, code: unknown): Error {
  const attempts = [...new Set(error.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))))].filter((m) => m !== '');
  const said = attempts.length > 0 ? attempts.join('; ') : `the connection failed (${String(code ?? 'no reason given')})`;
  return Object.assign(new Error(said, { cause: error }), code === undefined ? {} : { code });
}

/** The server's (or an https proxy's) certificate does not verify. Not retried: asking again cannot help. */
export class CertificateError extends Error {
  readonly code = 'ECERTIFICATE';
  /** The proxy whose own certificate it is, redacted (`https://proxy:3129`), when it is a proxy's. */
  readonly proxy: string | undefined;
  /** The variable that named that proxy (`HTTPS_PROXY`). */
  readonly variable: string | undefined;

  constructor(
    /** `host:port` whose certificate failed. */
    readonly host: string,
    /** In words, with OpenSSL's code: `it was issued by a certificate authority this host does not trust (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`. */
    readonly problem: string,
    options: { cause: unknown; proxy?: { shown: string; variable: string } },
  ) {
    const whose = options.proxy === undefined ? host : `the proxy ${options.proxy.shown} (${options.proxy.variable})`;
    super(`the TLS certificate of ${whose} does not verify: ${problem}`, { cause: options.cause });
    this.name = 'CertificateError';
    this.proxy = options.proxy?.shown;
    this.variable = options.proxy?.variable;
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
