/**
 * Errors of the download step. Each names the URL (redacted), what was tried and what to do; all of
 * them fail the upgrade with exit code 79 and leave nothing installed.
 */
import { ChainvisorError, ExitCode } from '../errors/index.js';

/** The plan's Info cannot be used. */
export class InfoError extends ChainvisorError {
  constructor(message: string, hint: string, cause?: unknown) {
    super('CHAINVISOR_INFO_INVALID', message, { hint, exitCode: ExitCode.upgradeFailed, cause });
    this.name = 'InfoError';
  }
}

/** The Info has no binary for this host and no `any`. */
export class NoPlatformError extends ChainvisorError {
  readonly platform: string;
  readonly keys: readonly string[];

  constructor(platform: string, keys: readonly string[]) {
    super(
      'CHAINVISOR_NO_PLATFORM',
      `the plan's Info has no binary for ${platform} and no "any" entry; it lists ${keys.length === 0 ? 'no platforms' : keys.join(', ')}`,
      {
        hint: `install the ${platform} binary by hand with 'chainvisor add-upgrade <name> <path>', or ask for an Info that includes "${platform}"`,
        exitCode: ExitCode.upgradeFailed,
      },
    );
    this.name = 'NoPlatformError';
    this.platform = platform;
    this.keys = keys;
  }
}

/** DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM is true and a URL carries no `checksum=`. */
export class ChecksumRequiredError extends ChainvisorError {
  readonly url: string;

  constructor(what: string, url: string) {
    super('CHAINVISOR_CHECKSUM_REQUIRED', `the URL of the ${what} has no checksum: ${url}`, {
      hint: 'the URL must end in ?checksum=sha256:<hex> so the download can be verified; fix the Info, install the binary by hand (chainvisor add-upgrade), or — only if you trust the source and the connection — set DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false',
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'ChecksumRequiredError';
    this.url = url;
  }
}

/** The URL policy (https only, loopback http, opt-ins) refuses a URL or a redirect. */
export class UrlRefusedError extends ChainvisorError {
  readonly url: string;

  constructor(url: string, reason: string, hint: string) {
    super('CHAINVISOR_URL_REFUSED', `refusing to download ${url}: ${reason}`, { hint, exitCode: ExitCode.upgradeFailed });
    this.name = 'UrlRefusedError';
    this.url = url;
  }
}

/** A redirect chain that is too long, loops, or leaves https. */
export class RedirectError extends ChainvisorError {
  readonly url: string;
  readonly chain: readonly string[];

  constructor(url: string, reason: string, chain: readonly string[]) {
    super('CHAINVISOR_REDIRECT_REFUSED', `refusing the redirects of ${url}: ${reason} (${chain.join(' -> ')})`, {
      hint: `the server or the URL in the Info is misconfigured: the Info must give the final, direct https URL; for an Info already on chain, get the binary from the chain's release and install it with 'chainvisor add-upgrade <name> <path>'`,
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'RedirectError';
    this.url = url;
    this.chain = chain;
  }
}

/** More bytes than CHAINVISOR_DOWNLOAD_MAX_BYTES. */
export class DownloadTooLargeError extends ChainvisorError {
  readonly url: string;
  readonly limit: number;

  constructor(url: string, detail: string, limit: number) {
    super('CHAINVISOR_DOWNLOAD_TOO_LARGE', `refusing the download of ${url}: ${detail}`, {
      hint: 'if the file is genuine, raise CHAINVISOR_DOWNLOAD_MAX_BYTES; otherwise the URL is wrong',
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'DownloadTooLargeError';
    this.url = url;
    this.limit = limit;
  }
}

/** The server could not be reached or refused the file, after the retries that made sense. */
export class DownloadError extends ChainvisorError {
  readonly url: string;
  readonly attempts: number;
  /** The last HTTP status, when there was one. */
  readonly status: number | undefined;

  constructor(what: string, url: string, detail: string, fields: { attempts: number; status?: number; hint: string; cause?: unknown }) {
    const tries = fields.attempts === 1 ? '1 attempt' : `${fields.attempts} attempts`;
    super('CHAINVISOR_DOWNLOAD_FAILED', `download of the ${what} from ${url} failed after ${tries}: ${detail}`, {
      hint: fields.hint,
      exitCode: ExitCode.upgradeFailed,
      cause: fields.cause,
    });
    this.name = 'DownloadError';
    this.url = url;
    this.attempts = fields.attempts;
    this.status = fields.status;
  }
}

/** CHAINVISOR_DOWNLOAD_DEADLINE ran out: the whole fetch, retries and backoff included, took too long. */
export class DownloadDeadlineError extends ChainvisorError {
  readonly url: string;
  readonly bytes: number;
  readonly deadlineMs: number;

  constructor(what: string, url: string, fields: { bytes: number; total: number | undefined; attempts: number; deadlineMs: number }) {
    const received = fields.total === undefined ? `${fields.bytes} bytes received` : `${fields.bytes} of ${fields.total} bytes received`;
    const tries = fields.attempts === 1 ? '1 attempt' : `${fields.attempts} attempts`;
    super(
      'CHAINVISOR_DOWNLOAD_DEADLINE',
      `download of the ${what} from ${url} did not finish within CHAINVISOR_DOWNLOAD_DEADLINE (${fields.deadlineMs} ms): ${received}, ${tries}`,
      {
        hint: "the server is too slow or keeps failing; check this host's network and the server, raise CHAINVISOR_DOWNLOAD_DEADLINE if the file is genuinely that slow to fetch, or install the binary by hand with 'chainvisor add-upgrade' and start chainvisor again",
        exitCode: ExitCode.upgradeFailed,
      },
    );
    this.name = 'DownloadDeadlineError';
    this.url = url;
    this.bytes = fields.bytes;
    this.deadlineMs = fields.deadlineMs;
  }
}

/**
 * The caller's AbortSignal fired: chainvisor is stopping. Not a failure of the server or of this host,
 * so it carries no cause (an AbortError's stack says nothing an operator can use).
 */
export class DownloadAbortedError extends ChainvisorError {
  readonly url: string;

  constructor(what: string, url: string) {
    super('CHAINVISOR_DOWNLOAD_ABORTED', `download of the ${what} from ${url} was cancelled: chainvisor is stopping`, {
      hint: 'chainvisor was asked to stop; the next start tries again from the beginning',
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'DownloadAbortedError';
    this.url = url;
  }
}

/** A problem of this host while downloading or installing (disk full, permissions). */
export class DownloadIoError extends ChainvisorError {
  readonly path: string;

  constructor(action: string, file: string, cause: NodeJS.ErrnoException) {
    super('CHAINVISOR_DOWNLOAD_IO', `could not ${action} ${file}: ${describeSystemError(cause)}`, {
      hint: ioHint(file, cause),
      exitCode: ExitCode.upgradeFailed,
      cause,
    });
    this.name = 'DownloadIoError';
    this.path = file;
  }
}

/**
 * The disk filled (or another error of this host) while an archive was unpacked: the download itself
 * had arrived. Same code as any other I/O problem of the download step.
 */
export class ExtractIoError extends ChainvisorError {
  readonly path: string;

  constructor(what: string, url: string, file: string, cause: NodeJS.ErrnoException) {
    super('CHAINVISOR_DOWNLOAD_IO', `could not extract the ${what} from ${url}: writing ${file}: ${describeSystemError(cause)}`, {
      hint: ioHint(file, cause),
      exitCode: ExitCode.upgradeFailed,
      cause,
    });
    this.name = 'ExtractIoError';
    this.path = file;
  }
}

/** `the disk is full (ENOSPC)`, or node's message with its code said once (`EACCES: permission denied, open …`). */
function describeSystemError(cause: NodeJS.ErrnoException): string {
  if (cause.code === 'ENOSPC') return 'the disk is full (ENOSPC)';
  if (cause.code === 'EDQUOT') return 'the disk quota is used up (EDQUOT)';
  const message = cause.message.replace(/\s+/g, ' ').trim();
  return cause.code === undefined || message.startsWith(cause.code) ? message : `${cause.code}: ${message}`;
}

function ioHint(file: string, cause: NodeJS.ErrnoException): string {
  return cause.code === 'ENOSPC' || cause.code === 'EDQUOT'
    ? `free disk space on the filesystem of ${file} and restart chainvisor`
    : cause.code === 'EACCES' || cause.code === 'EPERM' || cause.code === 'EROFS'
      ? `make ${file} writable by the user chainvisor runs as`
      : 'check the filesystem under $DAEMON_HOME/cosmovisor';
}
