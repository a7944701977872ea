/**
 * Verification and installation of downloaded upgrade binaries: checksums, format detection from the
 * bytes, safe extraction (tar, tar.gz, zip), finding the binary, the smoke test, and the final rename
 * into `upgrades/<dir>`. Nothing here touches the network or `current`.
 */
export {
  type Checksum,
  type ChecksumAlgo,
  assertChecksum,
  createHasher,
  formatChecksum,
  parseChecksum,
  shortChecksum,
  weakAlgos,
} from './checksum.js';
export {
  ArchiveInvalidError,
  ArchiveLimitError,
  ArchiveUnsafeError,
  BinaryNotFoundError,
  ChecksumFormatError,
  ChecksumMismatchError,
  SmokeTestError,
  type Subject,
  UnknownFormatError,
  type UnsafeReason,
  describe,
} from './errors.js';
export { type Detected, type Format, detectFormat, detectFromHead } from './format.js';
export { type ExtractLimits } from './limits.js';
export { type Unpacked, type UnpackOptions, unpack } from './unpack.js';
export { type StreamUnpacker, type StreamUnpackOptions, createStreamUnpacker } from './stream-unpack.js';
export { type SmokeTestOptions, smokeTest } from './smoke-test.js';
