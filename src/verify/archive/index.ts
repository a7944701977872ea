/**
 * Archives read safely: what a file is from its bytes (a row of the formats table, or an executable),
 * then each format's extractor or decoder, each entry's path checked before anything is written, every
 * decompressed byte through one inflate guard, and the tree written under one folder within limits.
 */
export { type Detected, detectFormat, detectFromHead, headLength } from './detect.js';
export { type CompressedExtractor, type CompressedOutcome, createCompressedExtractor } from './extract-compressed.js';
export { type ExtractResult, type TarExtractor } from './extract-tar.js';
export { feedFile } from './feed-file.js';
export { formatsHelp, renderFormatsTable, unknownFormatHint } from './format-texts.js';
export { type Compression, type Format, formats } from './formats.js';
