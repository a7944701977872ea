/**
 * What can go wrong between "the bytes arrived" and "the binary is installed". Every error carries
 * a stable code, the offending value, and a hint; all of them fail the upgrade (exit code 79).
 */
import { UpgradeError } from '../shared/errors/index.js';

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
export class ChecksumFormatError extends UpgradeError {
  declare readonly value: string;

  constructor(value: string, reason: string) {
    super('ChecksumFormatError', 'CHAINVISOR_CHECKSUM_INVALID', `invalid checksum ${JSON.stringify(value)}: ${reason}`, {}, { value });
  }
}

/** The downloaded bytes are not the ones the plan names. */
export class ChecksumMismatchError extends UpgradeError {
  /** `<algo>:<hex>` as in the plan. */
  declare readonly expected: string;
  /** `<algo>:<hex>` of what arrived. */
  declare readonly actual: string;
  declare readonly url: string | undefined;
  declare readonly bytes: number;

  constructor(subject: Subject, expected: string, actual: string, bytes: number) {
    super(
      'ChecksumMismatchError',
      'CHAINVISOR_CHECKSUM_MISMATCH',
      `checksum mismatch for ${describe(subject)}: expected ${expected}, got ${actual} (${bytes} bytes)`,
      {},
      { expected, actual, url: subject.url, bytes },
    );
  }
}

/**
 * The content is neither a known executable nor a supported archive. `hint` lists the formats
 * chainvisor reads (archive/format-texts.ts: the catalogue's default cannot, as shared/ knows no formats).
 */
export class UnknownFormatError extends UpgradeError {
  constructor(subject: Subject, detail: string, hint: string) {
    super('UnknownFormatError', 'CHAINVISOR_UNKNOWN_FORMAT', `the ${describe(subject)} is not a supported archive or executable: ${detail}`, { hint });
  }
}

export type UnsafeReason = 'absolute-path' | 'parent-path' | 'bad-name' | 'link-escape' | 'through-link' | 'special-file' | 'duplicate';

/** What an operator can do about a broken archive named on chain. */
const byHand = " Meanwhile get the binary from the chain's release, check it, and install it with 'chainvisor add-upgrade <name> <path>'";

/** An archive entry that would write outside the extraction folder, or something that is not a file. */
export class ArchiveUnsafeError extends UpgradeError {
  declare readonly entry: string;
  declare readonly reason: UnsafeReason;

  constructor(subject: Subject, entry: string, reason: UnsafeReason, detail: string) {
    super(
      'ArchiveUnsafeError',
      'CHAINVISOR_ARCHIVE_UNSAFE',
      `refusing the ${describe(subject)}: entry ${JSON.stringify(entry)} ${detail}`,
      {},
      { entry, reason },
    );
  }
}

/** An archive over the entry-count or uncompressed-size limit (decompression bombs). */
export class ArchiveLimitError extends UpgradeError {
  declare readonly limit: number;
  /** The setting that raises the limit, when there is one. */
  declare readonly setting: string | undefined;

  constructor(subject: Subject, detail: string, limit: number, setting: string | undefined) {
    super(
      'ArchiveLimitError',
      'CHAINVISOR_ARCHIVE_TOO_LARGE',
      `refusing the ${describe(subject)}: ${detail}`,
      {
        hint:
          setting === undefined
            ? `this is the mark of a decompression bomb; nothing was installed. Ask the publisher for a normal archive.${byHand}`
            : `if the archive is genuine, raise ${setting}; otherwise it may be a decompression bomb — nothing was installed`,
      },
      { limit, setting },
    );
  }
}

/** The archive could not be read: truncated or corrupt. */
export class ArchiveInvalidError extends UpgradeError {
  constructor(subject: Subject, detail: string, cause?: unknown) {
    super('ArchiveInvalidError', 'CHAINVISOR_ARCHIVE_INVALID', `the ${describe(subject)} could not be read: ${detail}`, { cause });
  }
}

/** The archive was made with an option chainvisor does not read (an xz filter other than LZMA2). */
export class ArchiveUnsupportedError extends UpgradeError {
  constructor(subject: Subject, detail: string) {
    super('ArchiveUnsupportedError', 'CHAINVISOR_ARCHIVE_UNSUPPORTED', `the ${describe(subject)} cannot be read: ${detail}`);
  }
}

/** This build of chainvisor cannot decompress the archive: a decoder package is not the one it drives. */
export class DecoderUnavailableError extends UpgradeError {
  declare readonly compression: string;

  constructor(subject: Subject, compression: string, detail: string) {
    super(
      'DecoderUnavailableError',
      'CHAINVISOR_DECODER_UNAVAILABLE',
      `cannot decompress the ${describe(subject)} (${compression}): ${detail}`,
      {},
      { compression },
    );
  }
}

/** Neither `bin/$DAEMON_NAME` nor `$DAEMON_NAME` in the archive. */
export class BinaryNotFoundError extends UpgradeError {
  declare readonly binaryName: string;
  declare readonly found: readonly string[];

  constructor(subject: Subject, name: string, found: readonly string[], hint: string) {
    const listing = found.length === 0 ? 'it is empty' : `its top level holds ${found.map((f) => JSON.stringify(f)).join(', ')}`;
    super(
      'BinaryNotFoundError',
      'CHAINVISOR_BINARY_NOT_IN_ARCHIVE',
      `the ${describe(subject)} holds neither bin/${name} nor ${name}: ${listing}`,
      { hint },
      { binaryName: name, found },
    );
  }
}

/** `<binary> version` failed or hung. */
export class SmokeTestError extends UpgradeError {
  declare readonly output: string;

  constructor(binary: string, detail: string, output: string) {
    super(
      'SmokeTestError',
      'CHAINVISOR_SMOKE_TEST_FAILED',
      `the downloaded binary failed its smoke test (${binary} version): ${detail}${output === '' ? '' : `\n${output}`}`,
      {},
      { output },
    );
  }
}
