/**
 * Archives read safely: what a file is from its bytes, then tar (plain or compressed), zip and bare
 * compressed executables, each entry's path checked before anything is written, every decompressed
 * byte through one inflate guard, and the tree written under one folder within limits.
 */
export { type CompressedExtractor, type CompressedOutcome, createCompressedExtractor } from './extract-compressed.js';
export { createTarExtractor, type ExtractResult, extractTar, type TarExtractor } from './extract-tar.js';
export { extractZip } from './extract-zip.js';
export { feedFile } from './feed-file.js';
export { type Detected, detectFormat, detectFromHead, type Format, headLength } from './format.js';
