/**
 * What can go wrong between "the bytes arrived" and "the binary is installed". Every error carries
 * a stable code, the offending value, and a hint; all of them fail the upgrade (exit code 79).
 */
import { ChainvisorError, ExitCode } from '../errors/index.js';

/** Where the bytes came from, for messages: `linux/amd64 archive from https://host/path?…`. */
export interface Subject {
  /** `linux/amd64`, `any`, or `Info document`. */
  what: string;
  /** Redacted URL. */
  url?: string;
}

export function describe(subject: Subject): string {
  return subject.url === undefined ? subject.what : `${subject.what} from ${subject.url}`;
}

/** A `checksum=` value that cannot be used. */
export class ChecksumFormatError extends ChainvisorError {
  readonly value: string;

  constructor(value: string, reason: string) {
    super('CHAINVISOR_CHECKSUM_INVALID', `invalid checksum ${JSON.stringify(value)}: ${reason}`, {
      hint: `the Info must write it as checksum=<algorithm>:<hex>, for example checksum=sha256:<64 hex digits> (sha256 or sha512; sha1 and md5 are accepted for compatibility); for an Info already on chain, get the binary from the chain's release and install it with 'chainvisor add-upgrade <name> <path>'`,
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'ChecksumFormatError';
    this.value = value;
  }
}

/** The downloaded bytes are not the ones the plan names. */
export class ChecksumMismatchError extends ChainvisorError {
  /** `<algo>:<hex>` as in the plan. */
  readonly expected: string;
  /** `<algo>:<hex>` of what arrived. */
  readonly actual: string;
  readonly url: string | undefined;
  readonly bytes: number;

  constructor(subject: Subject, expected: string, actual: string, bytes: number) {
    super(
      'CHAINVISOR_CHECKSUM_MISMATCH',
      `checksum mismatch for ${describe(subject)}: expected ${expected}, got ${actual} (${bytes} bytes)`,
      {
        hint: "the plan's Info or the server is wrong; nothing was installed — do not switch binaries until it is resolved (install a verified binary with 'chainvisor add-upgrade', or fix the file on the server)",
        exitCode: ExitCode.upgradeFailed,
      },
    );
    this.name = 'ChecksumMismatchError';
    this.expected = expected;
    this.actual = actual;
    this.url = subject.url;
    this.bytes = bytes;
  }
}

/** The content is neither a known executable nor a supported archive. */
export class UnknownFormatError extends ChainvisorError {
  constructor(subject: Subject, detail: string) {
    super('CHAINVISOR_UNKNOWN_FORMAT', `the ${describe(subject)} is not a supported archive or executable: ${detail}`, {
      hint: `the Info must name a plain executable (ELF, Mach-O, PE or a #! script), or a .tar, .tar.gz/.tgz or .zip holding bin/<DAEMON_NAME> or <DAEMON_NAME>; nothing was installed; for an Info already on chain, get the binary from the chain's release and install it with 'chainvisor add-upgrade <name> <path>'`,
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'UnknownFormatError';
  }
}

export type UnsafeReason =
  | 'absolute-path'
  | 'parent-path'
  | 'bad-name'
  | 'link-escape'
  | 'through-link'
  | 'special-file'
  | 'duplicate';

/** An archive entry that would write outside the extraction folder, or something that is not a file. */
/** What an operator can do about a broken archive named on chain. */
const byHand = " Meanwhile get the binary from the chain's release, check it, and install it with 'chainvisor add-upgrade <name> <path>'";

export class ArchiveUnsafeError extends ChainvisorError {
  readonly entry: string;
  readonly reason: UnsafeReason;

  constructor(subject: Subject, entry: string, reason: UnsafeReason, detail: string) {
    super('CHAINVISOR_ARCHIVE_UNSAFE', `refusing the ${describe(subject)}: entry ${JSON.stringify(entry)} ${detail}`, {
      hint: `the archive is malformed or hostile; nothing was installed. Ask the release publisher for a clean archive (relative paths, no links leaving it, no devices).${byHand}`,
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'ArchiveUnsafeError';
    this.entry = entry;
    this.reason = reason;
  }
}

/** An archive over the entry-count or uncompressed-size limit (decompression bombs). */
export class ArchiveLimitError extends ChainvisorError {
  readonly limit: number;
  /** The setting that raises the limit, when there is one. */
  readonly setting: string | undefined;

  constructor(subject: Subject, detail: string, limit: number, setting: string | undefined) {
    super('CHAINVISOR_ARCHIVE_TOO_LARGE', `refusing the ${describe(subject)}: ${detail}`, {
      hint:
        setting === undefined
          ? `this is the mark of a decompression bomb; nothing was installed. Ask the publisher for a normal archive.${byHand}`
          : `if the archive is genuine, raise ${setting}; otherwise it may be a decompression bomb — nothing was installed`,
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'ArchiveLimitError';
    this.limit = limit;
    this.setting = setting;
  }
}

/** The archive could not be read: truncated or corrupt. */
export class ArchiveInvalidError extends ChainvisorError {
  constructor(subject: Subject, detail: string, cause?: unknown) {
    super('CHAINVISOR_ARCHIVE_INVALID', `the ${describe(subject)} could not be read: ${detail}`, {
      hint: `the archive is truncated or corrupt although its checksum matched: the plan names a broken file; ask the publisher to fix it.${byHand}`,
      exitCode: ExitCode.upgradeFailed,
      cause,
    });
    this.name = 'ArchiveInvalidError';
  }
}

/** Neither `bin/$DAEMON_NAME` nor `$DAEMON_NAME` in the archive. */
export class BinaryNotFoundError extends ChainvisorError {
  readonly binaryName: string;
  readonly found: readonly string[];

  constructor(subject: Subject, name: string, found: readonly string[], hint: string) {
    const listing = found.length === 0 ? 'it is empty' : `its top level holds ${found.map((f) => JSON.stringify(f)).join(', ')}`;
    super('CHAINVISOR_BINARY_NOT_IN_ARCHIVE', `the ${describe(subject)} holds neither bin/${name} nor ${name}: ${listing}`, {
      hint,
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'BinaryNotFoundError';
    this.binaryName = name;
    this.found = found;
  }
}

/** `<binary> version` failed or hung. */
export class SmokeTestError extends ChainvisorError {
  readonly output: string;

  constructor(binary: string, detail: string, output: string) {
    super('CHAINVISOR_SMOKE_TEST_FAILED', `the downloaded binary failed its smoke test (${binary} version): ${detail}${output === '' ? '' : `\n${output}`}`, {
      hint: 'the binary does not run on this host (wrong platform, missing shared library?); nothing was installed. Install a working binary with chainvisor add-upgrade, or set CHAINVISOR_SMOKE_TEST=false to skip the check',
      exitCode: ExitCode.upgradeFailed,
    });
    this.name = 'SmokeTestError';
    this.output = output;
  }
}

/** A system error of this host (disk full, permission denied), as opposed to a fault of the archive. */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}
