/**
 * `checksum=<algo>:<hex>` as go-getter (and so cosmovisor) writes it. A bare hex value is accepted as
 * go-getter does, the algorithm guessed from its length.
 */
import { ChecksumFormatError, ChecksumMismatchError, type Subject } from './errors.js';

export type ChecksumAlgo = 'sha256' | 'sha512' | 'sha1' | 'md5';

export interface Checksum {
  algo: ChecksumAlgo;
  /** Lower-case hex. */
  hex: string;
}

const hexLength: Record<ChecksumAlgo, number> = { md5: 32, sha1: 40, sha256: 64, sha512: 128 };

/** Weak algorithms, accepted only because old plans use them. */
export const weakAlgos: ReadonlySet<ChecksumAlgo> = new Set(['md5', 'sha1']);

export function parseChecksum(value: string): Checksum {
  const colon = value.indexOf(':');
  let algo: ChecksumAlgo | undefined;
  if (colon !== -1) {
    const name = value.slice(0, colon).trim().toLowerCase();
    if (name === 'file') throw new ChecksumFormatError(value, 'checksum files (checksum=file:<url>) are not supported');
    if (!(name in hexLength)) {
      throw new ChecksumFormatError(value, `unknown algorithm ${JSON.stringify(name)}; use sha256 or sha512 (sha1, md5 for compatibility)`);
    }
    algo = name as ChecksumAlgo;
  }
  const hex = (colon === -1 ? value : value.slice(colon + 1)).trim().toLowerCase();
  if (hex === '' || !/^[0-9a-f]+$/.test(hex)) {
    throw new ChecksumFormatError(value, 'the value after the algorithm must be hexadecimal digits');
  }
  if (algo === undefined) {
    algo = (Object.keys(hexLength) as ChecksumAlgo[]).find((a) => hexLength[a] === hex.length);
    if (algo === undefined) {
      throw new ChecksumFormatError(value, `${hex.length} hex digits match no algorithm (md5: 32, sha1: 40, sha256: 64, sha512: 128)`);
    }
  } else if (hex.length !== hexLength[algo]) {
    throw new ChecksumFormatError(value, `${algo} needs ${hexLength[algo]} hex digits, got ${hex.length}`);
  }
  return { algo, hex };
}

export function formatChecksum(checksum: Checksum): string {
  return `${checksum.algo}:${checksum.hex}`;
}

/** Throws ChecksumMismatchError unless `actual` is `expected`. */
export function assertChecksum(subject: Subject, expected: Checksum, actual: Checksum, bytes: number): void {
  if (expected.algo !== actual.algo || expected.hex !== actual.hex) {
    throw new ChecksumMismatchError(subject, formatChecksum(expected), formatChecksum(actual), bytes);
  }
}
