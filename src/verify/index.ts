/**
 * Verification and installation of downloaded upgrade binaries: checksums, format detection from the
 * bytes, safe extraction (every format of archive/formats.ts's table, and bare executables), finding
 * the binary, the smoke test, and the final rename into `upgrades/<dir>`. Nothing here touches the
 * network or `current`.
 */
export {
  type Compression,
  type Detected,
  detectFormat,
  detectFromHead,
  type Format,
  formats,
  formatsHelp,
  renderFormatsTable,
  unknownFormatHint,
} from './archive/index.js';
export { assertChecksum, type Checksum, type ChecksumAlgo, formatChecksum, parseChecksum, weakAlgos } from './checksum.js';
export {
  ArchiveInvalidError,
  ArchiveLimitError,
  ArchiveUnsafeError,
  ArchiveUnsupportedError,
  BinaryNotFoundError,
  ChecksumFormatError,
  ChecksumMismatchError,
  DecoderUnavailableError,
  describe,
  SmokeTestError,
  type Subject,
  UnknownFormatError,
  type UnsafeReason,
} from './errors.js';
export { type ExtractLimits } from './limits.js';
export { smokeTest, type SmokeTestOptions } from './smoke-test.js';
export { unpack, type Unpacked, type UnpackOptions } from './unpack.js';
