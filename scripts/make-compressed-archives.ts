/**
 * The gzip, bzip2, xz and zstd archives chainvisor must accept or refuse, built beside the tar and zip
 * ones of make-hostile-archives.ts: gzip and zstd with node:zlib, xz and bzip2 with Debian's `xz` and
 * `bzip2` commands (xz-utils and bzip2, which .ci/run installs), since no well-kept JavaScript package
 * writes them. Each compression gets a good tar, a bare compressed binary, a bomb and a truncated
 * stream; the rest are built here byte by byte: pzstd's layout, zstd bombs (the encoder's own and
 * RLE blocks), a zstd window or xz dictionary too large, xz filters and checks, trailing garbage.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { constants, crc32, createZstdCompress, gzipSync, zstdCompressSync } from 'node:zlib';

import { type Built, fakeBinary, tar, type TarEntry } from './make-hostile-archives.js';

export type Compressor = 'gzip' | 'bzip2' | 'xz' | 'zstd';

export const compressors: readonly Compressor[] = ['gzip', 'bzip2', 'xz', 'zstd'];

/** The extensions go-getter reads for each; the bytes, not these names, decide what chainvisor does. */
export const extensions: Record<Compressor, { tar: string; bare: string }> = {
  gzip: { tar: 'tar.gz', bare: 'gz' },
  bzip2: { tar: 'tar.bz2', bare: 'bz2' },
  xz: { tar: 'tar.xz', bare: 'xz' },
  zstd: { tar: 'tar.zst', bare: 'zst' },
};

/** `xzOptions`: the `xz` command's options instead of `-6` (`--check=sha256`, `--x86 --lzma2`). */
export function compress(compressor: Compressor, data: Buffer, xzOptions: readonly string[] = ['-6']): Buffer {
  if (compressor === 'zstd') return zstdCompressSync(data);
  if (compressor === 'gzip') return gzipSync(data, { level: 9 });
  const run = spawnSync(compressor, ['-c', ...(compressor === 'xz' ? xzOptions : ['-9'])], { input: data, maxBuffer: 1 << 30 });
  if (run.error !== undefined) throw new Error(`${compressor} could not run (install ${compressor === 'xz' ? 'xz-utils' : 'bzip2'}): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`${compressor} failed: ${run.stderr.toString()}`);
  return run.stdout;
}

/** A binary stand-in followed by `zeros` zero bytes: a bare compressed executable that inflates far. */
function bombBody(zeros: number): Buffer {
  return Buffer.concat([Buffer.from(fakeBinary()), Buffer.alloc(zeros)]);
}

/** Size of the bombs once inflated: far past the tests' 4 MiB CHAINVISOR_EXTRACT_MAX_BYTES. */
export const bombBytes = 256 << 20;

/** xz's options for the bombs: its fastest preset, twice as fast on 256 MiB of zeros, still a ratio of 6 850. */
const bombXzOptions = ['-0'];

/**
 * A bare compressed "executable" inflating to `bombBytes`: 0.6 (zstd) to 2 s (gzip -9, bzip2, xz) to
 * build. Under scripts/run-tests.mjs, each bomb is built once per test run and kept in the run's
 * CHAINVISOR_TEST_FIXTURE_CACHE folder for the other test files that need it (named by what makes it,
 * so a folder kept longer never serves another bomb).
 */
export function compressedBomb(compressor: Compressor): Built {
  const file = `bomb.${extensions[compressor].bare}`;
  const cache = process.env.CHAINVISOR_TEST_FIXTURE_CACHE;
  const made = `${bombBytes}${compressor === 'xz' ? bombXzOptions.join('') : ''}-${fakeBinary().length}`;
  const cached = cache === undefined || cache === '' ? undefined : path.join(cache, `${made}-${file}`);
  if (cached !== undefined) {
    try {
      return { file, data: readFileSync(cached) };
    } catch {
      // Not built yet in this run.
    }
  }
  const data = compress(compressor, bombBody(bombBytes), bombXzOptions);
  if (cached !== undefined) {
    // Whole or not at all: another test file may read it at any moment. A cache that cannot be written
    // only means the next file builds its own.
    const partial = `${cached}.${process.pid}.tmp`;
    try {
      writeFileSync(partial, data);
      renameSync(partial, cached);
    } catch {
      rmSync(partial, { force: true });
    }
  }
  return { file, data };
}

/**
 * Data that compresses about 2:1, like a binary: under the inflate guard's ratio, so only
 * CHAINVISOR_EXTRACT_MAX_BYTES stops it when it is large.
 */
export function binaryLike(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  let x = 0x9e3779b9;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    // Half the bytes random, half a repeated pattern.
    out[i] = i % 2 === 0 ? x & 0xff : i & 0x0f;
  }
  out.write(fakeBinary(), 0);
  return out;
}

const builtArchives = new Map<string, Record<string, Built>>();

/**
 * Good and hostile archives for one compression, keyed `<what>` (`tar`, `bare`, `traversal`, …). Built
 * once in a process (xz's take a second and a half; a test file may ask for them case by case).
 */
export function compressedArchives(compressor: Compressor, name: string): Record<string, Built> {
  const key = `${compressor}/${name}`;
  const built = builtArchives.get(key) ?? buildArchives(compressor, name);
  builtArchives.set(key, built);
  return built;
}

function buildArchives(compressor: Compressor, name: string): Record<string, Built> {
  const ext = extensions[compressor];
  const withLibs: TarEntry[] = [
    { name: 'bin/', type: 'dir' },
    { name: `bin/${name}`, body: fakeBinary(), mode: 0o755 },
    { name: 'lib/libwasmvm.x86_64.so', body: 'not really a library\n' },
    { name: 'lib/libwasmvm.so', type: 'symlink', linkname: 'libwasmvm.x86_64.so' },
  ];
  const good = compress(compressor, tar(withLibs));
  const bare = compress(compressor, Buffer.from(fakeBinary()));
  // Big enough to span several bzip2 blocks and xz/zstd buffers, so stopping early is visible; compressed
  // like a binary (about 2:1), so the inflate guard does not take it for a bomb.
  const readme = compress(compressor, tar([...withLibs, { name: 'README', body: binaryLike(2 << 20) }]));
  return {
    tar: { file: `${name}.${ext.tar}`, data: good },
    bare: { file: `${name}.${ext.bare}`, data: bare },
    /** The name says zip; the bytes say otherwise. */
    misnamed: { file: `${name}.zip`, data: good },
    truncatedTar: { file: `truncated.${ext.tar}`, data: readme.subarray(0, Math.floor(readme.length / 2)) },
    /** Cut a few bytes before the end: only the end marker (and checksum) are missing. */
    truncatedBare: { file: `truncated.${ext.bare}`, data: bare.subarray(0, bare.length - 6) },
    traversal: { file: `traversal.${ext.tar}`, data: compress(compressor, tar([...withLibs, { name: '../../evil', body: 'owned\n' }])) },
    notBinary: { file: `page.${ext.bare}`, data: compress(compressor, Buffer.from('<!DOCTYPE html><html>Access denied</html>\n'.repeat(200))) },
  };
}

// ---------------------------------------------------------------- streams built byte by byte

/** A zstd skippable frame (magic 0x184D2A50) holding `content`. */
export function zstdSkippable(content: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32LE(0x184d2a50, 0);
  head.writeUInt32LE(content.length, 4);
  return Buffer.concat([head, content]);
}

/**
 * pzstd's layout: `data` cut into `pieces` frames, each after a skippable frame holding the frame's
 * size (what `pzstd` writes, so that it can decompress the frames in parallel).
 */
export function pzstd(data: Buffer, pieces: number): Buffer {
  const size = Math.ceil(data.length / pieces);
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) {
    const frame = zstdCompressSync(data.subarray(at, at + size));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(frame.length, 0);
    parts.push(zstdSkippable(length), frame);
  }
  return Buffer.concat(parts);
}

/**
 * What the zstd encoder itself makes of a script followed by `zeros` zero bytes, as
 * `head -c 9G /dev/zero | zstd` would: the outside campaign's bomb of #31 — 9 GiB in 296 KB, about
 * 33 000:1, its compressed bytes spread evenly, so that it inflates as fast as it arrives. Built with
 * node:zlib's encoder (level 1) from one zeroed buffer written again and again, so the zeros are never
 * in memory; 9 GiB takes a few seconds.
 */
export async function zstdZerosBomb(zeros: number): Promise<Buffer> {
  const encoder = createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: 1 } });
  const out: Buffer[] = [];
  encoder.on('data', (data: Buffer) => out.push(data));
  const ended = once(encoder, 'end');
  encoder.write(Buffer.from(fakeBinary()));
  const zeroed = Buffer.alloc(8 << 20);
  for (let left = zeros; left > 0; left -= zeroed.length) {
    if (!encoder.write(zeroed.subarray(0, Math.min(left, zeroed.length)))) await once(encoder, 'drain');
  }
  encoder.end();
  await ended;
  return Buffer.concat(out);
}

/**
 * A zstd frame of `head` (a raw block) then RLE blocks of zeros up to `bytes`: the format's most
 * compact bomb, 4 bytes for each 128 KiB (32 768:1), so a 296 KB file holds 9.7 GB. Built byte by
 * byte, at once.
 */
export function zstdRleBomb(bytes: number, head: Buffer = Buffer.from(fakeBinary())): Buffer {
  const block = 128 << 10;
  // No single segment, no checksum, no dictionary, no content size; a 128 KiB window (log 17).
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (17 - 10) << 3])];
  const blockHeader = (last: boolean, type: number, size: number): Buffer => {
    const b = Buffer.alloc(3);
    b.writeUIntLE((size << 3) | (type << 1) | (last ? 1 : 0), 0, 3);
    return b;
  };
  parts.push(blockHeader(false, 0, head.length), head);
  const rle = Buffer.concat([blockHeader(false, 1, block), Buffer.from([0])]);
  const count = Math.max(1, Math.floor(bytes / block));
  for (let i = 0; i < count - 1; i++) parts.push(rle);
  parts.push(blockHeader(true, 1, block), Buffer.from([0]));
  return Buffer.concat(parts);
}

/** A zstd frame that asks for a 2 GiB window (log 31) before its first block. */
export function zstdHugeWindow(): Buffer {
  const raw = Buffer.from(fakeBinary());
  const header = Buffer.alloc(3);
  header.writeUIntLE((raw.length << 3) | 1, 0, 3);
  return Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (31 - 10) << 3]), header, raw]);
}

/**
 * An xz stream whose first block claims a dictionary of 2^(n/2+12) (property byte `n`; 36 = 1 GiB),
 * its block header's CRC32 fixed so that only the size is wrong.
 */
export function xzDictionary(data: Buffer, property: number): Buffer {
  const xz = Buffer.from(compress('xz', data));
  // Stream header (12 bytes), then the block header: size byte, flags, filter id 0x21, props size 1, props.
  const size = ((xz[12] as number) + 1) * 4;
  const header = xz.subarray(12, 12 + size);
  const at = header.indexOf(Buffer.from([0x21, 0x01]));
  if (at < 0) throw new Error('no LZMA2 filter in the block header');
  header[at + 2] = property;
  header.writeUInt32LE(crc32(header.subarray(0, size - 4)), size - 4);
  return xz;
}

/** `data` followed by bytes that begin no stream. */
export function withTrailingGarbage(data: Buffer): Buffer {
  return Buffer.concat([data, Buffer.from('this is not a stream\n')]);
}

/**
 * A script followed by `bytes` that gzip compresses about 200:1 (4 KiB of noise in each MiB, the rest
 * zeros): under the inflate guard's 1000:1, so only its checksum tells it from a release. The shape
 * of issue #44's case, 14 MB that expand to gigabytes.
 */
export function highRatioBinary(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let block = 0; block < bytes; block += 1 << 20) {
    for (let at = block; at < Math.min(block + 4096, bytes); at += 32) createHash('sha256').update(`${at}`).digest().copy(out, at);
  }
  out.write(fakeBinary(), 0);
  return out;
}
