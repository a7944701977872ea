/**
 * The xz container (the .xz file format 1.0.4: stream header, blocks, index, footer, stream padding),
 * walked from its headers alone before the bytes reach the decoder, for what the decoder cannot say:
 * each block header's filter and dictionary (xz-block-header.ts), and a SHA-256 stream rewritten as one
 * without a check (xz-rewrite.ts), its blocks' SHA-256 handed to `checks`. Blocks are found by walking
 * their LZMA2 chunk headers. Why: docs/design/downloads.md#verifyarchivexz-containerts.
 */
import { crc32 } from 'node:zlib';

import { StreamError, UnsupportedError } from './stream-error.js';
import { checkBlockHeader } from './xz-block-header.js';
import { corrupt, footerMagic, streamMagic } from './xz-fields.js';
import { checklessFooter, checklessIndex, checklessStreamHeader, type IndexRecord } from './xz-rewrite.js';

const sha256 = 0x0a;

/** Bytes of each check type (the spec's table); the decoder verifies none, CRC32 and CRC64. */
const checkSizes = [0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64];
const supportedChecks = new Set([0x00, 0x01, 0x04, sha256]);

/** One block's decompressed size, and its SHA-256 once its check was read (rewritten streams only). */
export interface BlockCheck {
  /** Known once the block's last chunk was read. */
  size: number | undefined;
  /** Undefined for a block the decoder checks itself. */
  sha256?: Buffer;
  /** True for a block whose SHA-256 comes (the stream has that check). */
  wantsSha256: boolean;
}

export interface XzContainerWalk {
  /** The next bytes; `out` gets the bytes for the decoder (rewritten in a SHA-256 stream). */
  push(chunk: Buffer, out: (bytes: Buffer) => void): void;
  /** True when the bytes so far end after a whole stream (and its padding). */
  readonly complete: boolean;
}

type Step = (field: Buffer) => void;

/** `checks` receives one entry per block, in order, as the block begins. */
export function createXzContainerWalk(checks: BlockCheck[]): XzContainerWalk {
  let field: Buffer = Buffer.alloc(0);
  let want = 12;
  let step: Step;
  let skip = 0;
  let out: (bytes: Buffer) => void = () => undefined;
  let streams = 0;

  // The stream being read.
  let rewrite = false;
  let checkSize = 0;
  let flags = Buffer.alloc(2);
  const records: IndexRecord[] = [];
  // The block being read.
  let block: BlockCheck = { size: undefined, wantsSha256: false };
  let headerSize = 0;
  let compressed = 0;
  let uncompressed = 0;
  // The index being read.
  let index: Buffer[] = [];
  let count = 0n;
  let listed: IndexRecord[] = [];

  const collect = (n: number, next: Step): void => {
    field = Buffer.alloc(0);
    want = n;
    step = next;
  };

  const streamHeader: Step = (h) => {
    if (!h.subarray(0, 6).equals(streamMagic)) throw new StreamError(`bytes ${h.subarray(0, 6).toString('hex')} where an xz stream should begin`);
    flags = Buffer.from(h.subarray(6, 8));
    if (crc32(flags) !== h.readUInt32LE(8)) throw corrupt('the stream header does not match its CRC32');
    const check = flags[1] as number;
    if (flags[0] !== 0 || check > 0x0f) throw new UnsupportedError('the xz stream header has flags this version of the format does not define');
    if (!supportedChecks.has(check)) throw new UnsupportedError(`the xz stream uses integrity check type ${check}, which the xz format reserves`);
    streams += 1;
    rewrite = check === sha256;
    checkSize = checkSizes[check] as number;
    records.length = 0;
    out(rewrite ? checklessStreamHeader() : h);
    collect(1, blockOrIndex);
  };

  const blockOrIndex: Step = (b) => {
    if (b[0] === 0) {
      index = [Buffer.from(b)];
      listed = [];
      if (!rewrite) out(b);
      varint((value) => {
        count = value;
        if (count !== BigInt(records.length)) throw corrupt('the index does not list the blocks the stream holds');
        record();
      });
      return;
    }
    headerSize = ((b[0] as number) + 1) * 4;
    const first = Buffer.from(b);
    collect(headerSize - 1, (rest) => blockHeader(Buffer.concat([first, rest])));
  };

  const blockHeader = (h: Buffer): void => {
    checkBlockHeader(h);
    block = { size: undefined, wantsSha256: rewrite };
    checks.push(block);
    compressed = 0;
    uncompressed = 0;
    out(h);
    collect(1, chunk);
  };

  const chunk: Step = (c) => {
    out(c);
    compressed += 1;
    const control = c[0] as number;
    if (control === 0) {
      block.size = uncompressed;
      const padding = (4 - ((headerSize + compressed) % 4)) % 4;
      collect(padding, blockPadding);
      if (padding === 0) blockPadding(Buffer.alloc(0));
      return;
    }
    if (control === 1 || control === 2) {
      collect(2, (s) => {
        out(s);
        compressed += 2;
        skip = s.readUInt16BE(0) + 1;
        uncompressed += skip;
        compressed += skip;
        collect(1, chunk);
      });
      return;
    }
    if (control < 0x80) throw corrupt(`LZMA2 chunk control byte ${control}`);
    collect(control >= 0xc0 ? 5 : 4, (s) => {
      out(s);
      compressed += s.length;
      uncompressed += (((control & 0x1f) << 16) | s.readUInt16BE(0)) + 1;
      skip = s.readUInt16BE(2) + 1;
      compressed += skip;
      collect(1, chunk);
    });
  };

  const blockPadding: Step = (p) => {
    if (p.some((byte) => byte !== 0)) throw corrupt('non-zero block padding');
    out(p);
    if (checkSize === 0) endBlock(Buffer.alloc(0));
    else collect(checkSize, endBlock);
  };

  const endBlock: Step = (check) => {
    if (rewrite) block.sha256 = Buffer.from(check);
    else out(check);
    records.push({ unpadded: BigInt(headerSize + compressed + checkSize), uncompressed: BigInt(block.size ?? 0) });
    collect(1, blockOrIndex);
  };

  /** Reads a multibyte integer (at most 9 bytes) one byte at a time, as part of the index. */
  const varint = (then: (value: bigint) => void): void => {
    let value = 0n;
    let shift = 0n;
    const next: Step = (b) => {
      index.push(Buffer.from(b));
      if (!rewrite) out(b);
      const byte = b[0] as number;
      value |= BigInt(byte & 0x7f) << shift;
      shift += 7n;
      if ((byte & 0x80) === 0) then(value);
      else if (shift >= 63n) throw corrupt('an index number longer than 9 bytes');
      else collect(1, next);
    };
    collect(1, next);
  };

  const record = (): void => {
    if (BigInt(listed.length) === count) {
      const size = index.reduce((sum, part) => sum + part.length, 0);
      collect(((4 - (size % 4)) % 4) + 4, indexEnd);
      return;
    }
    varint((unpadded) =>
      varint((size) => {
        listed.push({ unpadded, uncompressed: size });
        record();
      }),
    );
  };

  const indexEnd: Step = (tail) => {
    if (!rewrite) {
      out(tail);
      collect(12, footer);
      return;
    }
    const original = Buffer.concat([...index, tail.subarray(0, tail.length - 4)]);
    if (crc32(original) !== tail.readUInt32LE(tail.length - 4)) throw corrupt('the index does not match its CRC32');
    listed.forEach((entry, i) => {
      const seen = records[i];
      if (seen === undefined || seen.unpadded !== entry.unpadded || seen.uncompressed !== entry.uncompressed) {
        throw corrupt('the index does not match the blocks');
      }
    });
    // The same blocks without their 32-byte checks.
    const rewritten = checklessIndex(records, checkSize);
    out(rewritten);
    collect(12, (f) => footer(f, rewritten.length));
  };

  const footer = (f: Buffer, rewrittenIndex?: number): void => {
    if (!f.subarray(10, 12).equals(footerMagic) || !f.subarray(8, 10).equals(flags)) throw corrupt('the stream footer does not match its header');
    if (crc32(f.subarray(4, 10)) !== f.readUInt32LE(0)) throw corrupt('the stream footer does not match its CRC32');
    if (rewrittenIndex === undefined) out(f);
    else out(checklessFooter(rewrittenIndex));
    collect(4, between);
  };

  /** After a stream: padding (zeros, four at a time) or the next stream. */
  const between: Step = (b) => {
    if (b.every((byte) => byte === 0)) {
      out(b);
      collect(4, between);
      return;
    }
    const first = Buffer.from(b);
    collect(8, (rest) => streamHeader(Buffer.concat([first, rest])));
  };

  step = streamHeader;

  return {
    push(bytes, give) {
      out = give;
      let at = 0;
      while (at < bytes.length) {
        if (skip > 0) {
          const n = Math.min(skip, bytes.length - at);
          out(bytes.subarray(at, at + n));
          skip -= n;
          at += n;
          continue;
        }
        const n = Math.min(want - field.length, bytes.length - at);
        field = field.length === 0 ? bytes.subarray(at, at + n) : Buffer.concat([field, bytes.subarray(at, at + n)]);
        at += n;
        if (field.length === want) step(field);
      }
    },
    get complete() {
      return streams > 0 && step === between && field.length === 0 && skip === 0;
    },
  };
}
