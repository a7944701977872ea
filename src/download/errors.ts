/**
 * Errors of the download step. Each names the URL (redacted), what was tried and what to do; all of
 * them fail the upgrade with exit code 79 and leave nothing installed.
 */
import { UpgradeError } from '../shared/errors/index.js';

/** The plan's Info cannot be used. */
export class InfoError extends UpgradeError {
  constructor(message: string, hint: string, cause?: unknown) {
    // A plan's Info is set on chain: an operator cannot fix it at the height, but can go on without it.
    const wayOut = hint.includes('add-upgrade')
      ? ''
      : "; once the plan is on chain, install the release binary by hand with 'chainvisor add-upgrade <name> <path>' and start chainvisor again";
    super('InfoError', 'CHAINVISOR_INFO_INVALID', message, { hint: `${hint}${wayOut}`, cause });
  }
}

/** The Info has no binary for this host and no `any`. */
export class NoPlatformError extends UpgradeError {
  declare readonly platform: string;
  declare readonly keys: readonly string[];

  constructor(platform: string, keys: readonly string[]) {
    super(
      'NoPlatformError',
      'CHAINVISOR_NO_PLATFORM',
      `the plan's Info has no binary for ${platform} and no "any" entry; it lists ${keys.length === 0 ? 'no platforms' : keys.join(', ')}`,
      { hint: `install the ${platform} binary by hand with 'chainvisor add-upgrade <name> <path>', or ask for an Info that includes "${platform}"` },
      { platform, keys },
    );
  }
}

/** DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM is true and a URL carries no `checksum=`. */
export class ChecksumRequiredError extends UpgradeError {
  declare readonly url: string;

  constructor(what: string, url: string) {
    super('ChecksumRequiredError', 'CHAINVISOR_CHECKSUM_REQUIRED', `the URL of the ${what} has no checksum: ${url}`, {}, { url });
  }
}

/** The URL policy (https only, loopback http, opt-ins) refuses a URL or a redirect. */
export class UrlRefusedError extends UpgradeError {
  declare readonly url: string;

  constructor(url: string, reason: string, hint: string) {
    super('UrlRefusedError', 'CHAINVISOR_URL_REFUSED', `refusing to download ${url}: ${reason}`, { hint }, { url });
  }
}

/** A redirect chain that is too long, loops, or leaves https. */
export class RedirectError extends UpgradeError {
  declare readonly url: string;
  declare readonly chain: readonly string[];

  constructor(url: string, reason: string, chain: readonly string[]) {
    super('RedirectError', 'CHAINVISOR_REDIRECT_REFUSED', `refusing the redirects of ${url}: ${reason} (${chain.join(' -> ')})`, {}, { url, chain });
  }
}

/** More bytes than CHAINVISOR_DOWNLOAD_MAX_BYTES. */
export class DownloadTooLargeError extends UpgradeError {
  declare readonly url: string;
  declare readonly limit: number;

  constructor(url: string, detail: string, limit: number) {
    super('DownloadTooLargeError', 'CHAINVISOR_DOWNLOAD_TOO_LARGE', `refusing the download of ${url}: ${detail}`, {}, { url, limit });
  }
}

/** The server could not be reached or refused the file, after the retries that made sense. */
export class DownloadError extends UpgradeError {
  declare readonly url: string;
  declare readonly attempts: number;
  /** The last HTTP status, when there was one. */
  declare readonly status: number | undefined;

  constructor(what: string, url: string, detail: string, fields: { attempts: number; status?: number; hint: string; cause?: unknown }) {
    super(
      'DownloadError',
      'CHAINVISOR_DOWNLOAD_FAILED',
      `download of the ${what} from ${url} failed after ${attempts(fields.attempts)}: ${detail}`,
      { hint: fields.hint, cause: fields.cause },
      { url, attempts: fields.attempts, status: fields.status },
    );
  }
}

/** CHAINVISOR_DOWNLOAD_DEADLINE ran out: the whole fetch, retries and backoff included, took too long. */
export class DownloadDeadlineError extends UpgradeError {
  declare readonly url: string;
  declare readonly bytes: number;
  declare readonly deadlineMs: number;

  constructor(what: string, url: string, fields: { bytes: number; total: number | undefined; attempts: number; deadlineMs: number }) {
    const received = fields.total === undefined ? `${fields.bytes} bytes received` : `${fields.bytes} of ${fields.total} bytes received`;
    super(
      'DownloadDeadlineError',
      'CHAINVISOR_DOWNLOAD_DEADLINE',
      `download of the ${what} from ${url} did not finish within CHAINVISOR_DOWNLOAD_DEADLINE (${fields.deadlineMs} ms): ${received}, ${attempts(fields.attempts)}`,
      {},
      { url, bytes: fields.bytes, deadlineMs: fields.deadlineMs },
    );
  }
}

/**
 * The caller's AbortSignal fired: chainvisor is stopping. Not a failure of the server or of this host,
 * so it carries no cause (an AbortError's stack says nothing an operator can use).
 */
export class DownloadAbortedError extends UpgradeError {
  declare readonly url: string;

  constructor(what: string, url: string) {
    super('DownloadAbortedError', 'CHAINVISOR_DOWNLOAD_ABORTED', `download of the ${what} from ${url} was cancelled: chainvisor is stopping`, {}, { url });
  }
}

/** A problem of this host while downloading or installing (disk full, permissions). */
export class DownloadIoError extends UpgradeError {
  declare readonly path: string;

  constructor(action: string, file: string, cause: NodeJS.ErrnoException) {
    super(
      'DownloadIoError',
      'CHAINVISOR_DOWNLOAD_IO',
      `could not ${action} ${file}: ${describeSystemError(cause)}`,
      { hint: ioHint(file, cause), cause },
      { path: file },
    );
  }
}

/**
 * The disk filled (or another error of this host) while an archive was unpacked: the download itself
 * had arrived. Same code as any other I/O problem of the download step.
 */
export class ExtractIoError extends UpgradeError {
  declare readonly path: string;

  constructor(what: string, url: string, file: string, cause: NodeJS.ErrnoException) {
    super(
      'ExtractIoError',
      'CHAINVISOR_DOWNLOAD_IO',
      `could not extract the ${what} from ${url}: writing ${file}: ${describeSystemError(cause)}`,
      { hint: ioHint(file, cause), cause },
      { path: file },
    );
  }
}

function attempts(n: number): string {
  return n === 1 ? '1 attempt' : `${n} attempts`;
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
