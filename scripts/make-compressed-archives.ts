/**
 * The bzip2, xz and zstd archives chainvisor must accept or refuse, built beside the tar and zip ones of
 * make-hostile-archives.ts: zstd with node:zlib, xz and bzip2 with Debian's `xz` and `bzip2` commands
 * (xz-utils and bzip2, which .ci/run installs), since no well-kept JavaScript package writes them.
 * Each compression gets a good tar, a bare compressed binary, a bomb and a truncated stream.
 */
import { spawnSync } from 'node:child_process';
import { zstdCompressSync } from 'node:zlib';

import { type Built, fakeBinary, tar, type TarEntry } from './make-hostile-archives.js';

export type Compressor = 'bzip2' | 'xz' | 'zstd';

export const compressors: readonly Compressor[] = ['bzip2', 'xz', 'zstd'];

/** The extensions go-getter reads for each; the bytes, not these names, decide what chainvisor does. */
export const extensions: Record<Compressor, { tar: string; bare: string }> = {
  bzip2: { tar: 'tar.bz2', bare: 'bz2' },
  xz: { tar: 'tar.xz', bare: 'xz' },
  zstd: { tar: 'tar.zst', bare: 'zst' },
};

export function compress(compressor: Compressor, data: Buffer): Buffer {
  if (compressor === 'zstd') return zstdCompressSync(data);
  const run = spawnSync(compressor, ['-c', compressor === 'xz' ? '-6' : '-9'], { input: data, maxBuffer: 1 << 30 });
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

/** A bare compressed "executable" inflating to `bombBytes` (built apart: it takes a second or two). */
export function compressedBomb(compressor: Compressor): Built {
  return { file: `bomb.${extensions[compressor].bare}`, data: compress(compressor, bombBody(bombBytes)) };
}

/** Good and hostile archives for one compression, keyed `<what>` (`tar`, `bare`, `traversal`, …). */
export function compressedArchives(compressor: Compressor, name: string): Record<string, Built> {
  const ext = extensions[compressor];
  const withLibs: TarEntry[] = [
    { name: 'bin/', type: 'dir' },
    { name: `bin/${name}`, body: fakeBinary(), mode: 0o755 },
    { name: 'lib/libwasmvm.x86_64.so', body: 'not really a library\n' },
    { name: 'lib/libwasmvm.so', type: 'symlink', linkname: 'libwasmvm.x86_64.so' },
  ];
  const good = compress(compressor, tar(withLibs));
  const bare = compress(compressor, Buffer.from(fakeBinary()));
  // Big enough to span several bzip2 blocks and xz/zstd buffers, so stopping early is visible.
  const readme = compress(compressor, tar([...withLibs, { name: 'README', body: Buffer.alloc(2 << 20, 'chainvisor\n') }]));
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
