/** The two caps that stop decompression bombs: how many entries, and how many bytes they expand to. */
import { formatBytes } from '../shared/units.js';
import { ArchiveLimitError, type Subject } from './errors.js';

export interface ExtractLimits {
  /** CHAINVISOR_EXTRACT_MAX_BYTES: total uncompressed bytes. */
  maxBytes: number;
  /** CHAINVISOR_EXTRACT_MAX_ENTRIES. */
  maxEntries: number;
}

export interface Budget {
  /** Counts one more entry; throws past the cap. */
  entry(): void;
  /** Counts bytes about to be written; throws past the cap. */
  bytes(n: number): void;
  readonly totals: { entries: number; bytes: number };
}

export function createBudget(subject: Subject, limits: ExtractLimits): Budget {
  const totals = { entries: 0, bytes: 0 };
  return {
    totals,
    entry() {
      totals.entries += 1;
      if (totals.entries > limits.maxEntries) {
        throw new ArchiveLimitError(subject, `it holds more than ${limits.maxEntries} entries`, limits.maxEntries, 'CHAINVISOR_EXTRACT_MAX_ENTRIES');
      }
    },
    bytes(n) {
      totals.bytes += n;
      if (totals.bytes > limits.maxBytes) throw tooLarge(subject, limits);
    },
  };
}

/** The refusal of an archive that expands past CHAINVISOR_EXTRACT_MAX_BYTES. */
export function tooLarge(subject: Subject, limits: ExtractLimits): ArchiveLimitError {
  return new ArchiveLimitError(
    subject,
    `it expands to more than ${limits.maxBytes} bytes (${formatBytes(limits.maxBytes)}) uncompressed`,
    limits.maxBytes,
    'CHAINVISOR_EXTRACT_MAX_BYTES',
  );
}
