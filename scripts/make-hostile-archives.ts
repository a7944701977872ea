/**
 * Builds the archives chainvisor's extraction must refuse — and the good ones it must accept — byte
 * by byte, so that nothing (no tar or zip tool "fixing" a path) stands between the attack and the
 * code under test. Tests call `buildArchives()` and write the files into their own temp folder; no
 * archive is checked in.
 *
 *   node dist/scripts/make-hostile-archives.js <out-dir> [daemon-name]
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32, deflateRawSync, gzipSync, type ZlibOptions } from 'node:zlib';

// ---------------------------------------------------------------- tar (ustar) writer

export type TarType = 'file' | 'hardlink' | 'symlink' | 'char' | 'block' | 'dir' | 'fifo';

export interface TarEntry {
  name: string;
  type?: TarType;
  body?: Buffer | string;
  linkname?: string;
  mode?: number;
}

const typeflag: Record<TarType, string> = { file: '0', hardlink: '1', symlink: '2', char: '3', block: '4', dir: '5', fifo: '6' };

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\u0000`;
}

function tarHeader(entry: TarEntry, size: number): Buffer {
  const header = Buffer.alloc(512);
  const type = entry.type ?? 'file';
  let name = entry.name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 154);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  header.write(name, 0, 100, 'utf8');
  header.write(octal(entry.mode ?? (type === 'dir' ? 0o755 : 0o644), 8), 100, 'latin1');
  header.write(octal(0, 8), 108, 'latin1');
  header.write(octal(0, 8), 116, 'latin1');
  header.write(octal(size, 12), 124, 'latin1');
  header.write(octal(1_700_000_000, 12), 136, 'latin1');
  header.write('        ', 148, 'latin1');
  header.write(typeflag[type], 156, 'latin1');
  header.write(entry.linkname ?? '', 157, 100, 'utf8');
  header.write('ustar\u000000', 257, 'latin1');
  header.write('root', 265, 'latin1');
  header.write('root', 297, 'latin1');
  header.write(octal(0, 8), 329, 'latin1');
  header.write(octal(0, 8), 337, 'latin1');
  header.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1');
  return header;
}

export function tar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const body = entry.type === undefined || entry.type === 'file' ? Buffer.from(entry.body ?? '') : Buffer.alloc(0);
    parts.push(tarHeader(entry, body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------- zip writer

export interface ZipEntry {
  name: string;
  body?: Buffer | string;
  /** Unix mode bits including the type (0o100755, 0o120777 for a link); 0 for a DOS-made entry. */
  mode?: number;
  method?: 'store' | 'deflate';
  /** Lie in the headers about the uncompressed size (zip bombs). */
  declaredSize?: number;
  /** The deflate encoder's options (zlib's defaults otherwise). */
  deflate?: ZlibOptions;
}

export function zip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const raw = Buffer.from(entry.body ?? '');
    const method = entry.method === 'deflate' ? 8 : 0;
    const data = method === 8 ? deflateRawSync(raw, entry.deflate) : raw;
    const crc = crc32(raw);
    const size = entry.declaredSize ?? raw.length;
    const mode = entry.mode ?? 0o100644;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(mode === 0 ? 20 : (3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** gzip at level 9, or with the encoder's `options`. */
export function gzip(data: Buffer, options: ZlibOptions = { level: 9 }): Buffer {
  return gzipSync(data, options);
}

// ---------------------------------------------------------------- the archives

/** A node binary stand-in: prints its version, or records that it ran when CHAINVISOR_TEST_MARKER is set. */
export function fakeBinary(version = 'v2.0.0'): string {
  return `#!/bin/sh\nif [ -n "$CHAINVISOR_TEST_MARKER" ]; then echo "${version} $*" >> "$CHAINVISOR_TEST_MARKER"; fi\necho "${version}"\n`;
}

export interface ArchiveOptions {
  /** DAEMON_NAME. */
  name: string;
  /** Relative escape the traversal attacks aim at (from the extraction folder), e.g. `../../evil`. */
  escapeRelative: string;
  /** Absolute path the absolute-path attacks aim at. */
  escapeAbsolute: string;
}

export interface Built {
  file: string;
  data: Buffer;
}

/** Archives chainvisor must accept, each holding the binary somewhere it is allowed to be. */
export function goodArchives(name: string): Record<string, Built> {
  const binary = fakeBinary();
  const withLibs: TarEntry[] = [
    { name: 'bin/', type: 'dir' },
    { name: `bin/${name}`, body: binary, mode: 0o755 },
    { name: 'lib/', type: 'dir' },
    { name: 'lib/libwasmvm.x86_64.so', body: 'not really a library\n' },
    { name: 'lib/libwasmvm.so', type: 'symlink', linkname: 'libwasmvm.x86_64.so' },
  ];
  return {
    plain: { file: name, data: Buffer.from(binary) },
    tar: { file: `${name}.tar`, data: tar(withLibs) },
    tarGz: { file: `${name}.tar.gz`, data: gzip(tar(withLibs)) },
    zip: {
      file: `${name}.zip`,
      data: zip([
        { name: 'bin/', mode: 0o040755 },
        { name: `bin/${name}`, body: binary, mode: 0o100755, method: 'deflate' },
        { name: 'lib/libwasmvm.x86_64.so', body: 'not really a library\n', method: 'deflate' },
        { name: 'lib/libwasmvm.so', body: 'libwasmvm.x86_64.so', mode: 0o120777 },
      ]),
    },
    gz: { file: `${name}.gz`, data: gzip(Buffer.from(binary)) },
    /** `$DAEMON_NAME` at the root, not executable: moved into bin/ and made executable. */
    rootTarGz: {
      file: `${name}-root.tar.gz`,
      data: gzip(
        tar([
          { name, body: binary, mode: 0o644 },
          { name: 'libwasmvm.so', body: 'lib\n' },
        ]),
      ),
    },
    rootZip: {
      file: `${name}-root.zip`,
      data: zip([
        { name, body: binary, mode: 0, method: 'deflate' },
        { name: 'README.md', body: '# release\n' },
      ]),
    },
  };
}

/** One archive per attack; each must be refused with nothing written outside the extraction folder. */
export function hostileArchives(options: ArchiveOptions): Record<string, Built> {
  const { name, escapeRelative, escapeAbsolute } = options;
  const binary: TarEntry = { name: `bin/${name}`, body: fakeBinary(), mode: 0o755 };
  const zipBinary: ZipEntry = { name: `bin/${name}`, body: fakeBinary(), mode: 0o100755 };
  const many: TarEntry[] = [binary];
  for (let i = 0; i < 200; i++) many.push({ name: `data/f${i}`, body: 'x' });
  const good = tar([binary, { name: 'README', body: 'readme\n'.repeat(200) }]);
  return {
    tarTraversal: { file: 'traversal.tar', data: tar([binary, { name: escapeRelative, body: 'owned\n' }]) },
    tarAbsolute: { file: 'absolute.tar', data: tar([binary, { name: escapeAbsolute, body: 'owned\n' }]) },
    tarSymlinkEscape: { file: 'symlink-escape.tar', data: tar([binary, { name: 'lib', type: 'symlink', linkname: path.posix.dirname(escapeRelative) }]) },
    tarSymlinkAbsolute: { file: 'symlink-absolute.tar', data: tar([binary, { name: 'lib', type: 'symlink', linkname: path.posix.dirname(escapeAbsolute) }]) },
    /** Each link stays inside on its own; `p/out` escapes only by going through `p/up` (placed after it). */
    tarSymlinkChain: {
      file: 'symlink-chain.tar',
      data: tar([
        binary,
        { name: 'p/', type: 'dir' },
        { name: 'p/out', type: 'symlink', linkname: 'up/..' },
        { name: 'p/up', type: 'symlink', linkname: '..' },
      ]),
    },
    tarThroughSymlink: {
      file: 'through-symlink.tar',
      data: tar([
        { name: 'bin/', type: 'dir' },
        { name: 'lib', type: 'symlink', linkname: 'bin' },
        { name: `lib/${name}`, body: fakeBinary() },
      ]),
    },
    tarHardlinkEscape: { file: 'hardlink-escape.tar', data: tar([binary, { name: 'lib/evil', type: 'hardlink', linkname: escapeRelative }]) },
    tarHardlinkAbsolute: { file: 'hardlink-absolute.tar', data: tar([binary, { name: 'lib/evil', type: 'hardlink', linkname: escapeAbsolute }]) },
    tarDevice: { file: 'device.tar', data: tar([binary, { name: 'dev/sda', type: 'block' }, { name: 'dev/null', type: 'char' }]) },
    tarFifo: { file: 'fifo.tar', data: tar([binary, { name: 'run/pipe', type: 'fifo' }]) },
    tarDuplicate: {
      file: 'duplicate.tar',
      data: tar([binary, { name: `bin/${name}`, type: 'symlink', linkname: '../lib/other' }]),
    },
    zipTraversal: { file: 'traversal.zip', data: zip([zipBinary, { name: escapeRelative, body: 'owned\n' }]) },
    zipBackslashTraversal: { file: 'backslash-traversal.zip', data: zip([zipBinary, { name: escapeRelative.replaceAll('/', '\\'), body: 'owned\n' }]) },
    zipAbsolute: { file: 'absolute.zip', data: zip([zipBinary, { name: escapeAbsolute, body: 'owned\n' }]) },
    zipSymlinkEscape: { file: 'symlink-escape.zip', data: zip([zipBinary, { name: 'lib', body: path.posix.dirname(escapeRelative), mode: 0o120777 }]) },
    /** 16 MiB of zeros behind a few KiB of gzip. */
    tarGzBomb: { file: 'bomb.tar.gz', data: gzip(tar([binary, { name: 'data/zeros', body: Buffer.alloc(16 << 20) }])) },
    /** 6 MiB uncompressed: over a 4 MiB CHAINVISOR_EXTRACT_MAX_BYTES. */
    tarOversized: { file: 'oversized.tar', data: tar([binary, { name: 'data/big', body: Buffer.alloc(6 << 20, 1) }]) },
    /** Declares 1 KiB, inflates to 8 MiB. */
    zipBomb: { file: 'bomb.zip', data: zip([zipBinary, { name: 'data/zeros', body: Buffer.alloc(8 << 20), method: 'deflate', declaredSize: 1024 }]) },
    tarTooManyEntries: { file: 'too-many.tar', data: tar(many) },
    tarMissingBinary: {
      file: 'missing-binary.tar.gz',
      data: gzip(
        tar([
          { name: 'README.md', body: '# nothing here\n' },
          { name: `bin/${name}d`, body: fakeBinary() },
        ]),
      ),
    },
    tarWrappedBinary: { file: 'wrapped.tar.gz', data: gzip(tar([{ name: `${name}-v2/bin/${name}`, body: fakeBinary(), mode: 0o755 }])) },
    truncatedTarGz: { file: 'truncated.tar.gz', data: gzip(good).subarray(0, 200) },
    htmlPage: { file: 'error.html', data: Buffer.from('<!DOCTYPE html><html><body>Access denied</body></html>\n') },
  };
}

export async function writeArchives(dir: string, archives: Record<string, Built>): Promise<Record<string, string>> {
  await fs.mkdir(dir, { recursive: true });
  const out: Record<string, string> = {};
  for (const [key, built] of Object.entries(archives)) {
    const file = path.join(dir, built.file);
    await fs.writeFile(file, built.data);
    out[key] = file;
  }
  return out;
}

async function main(argv: string[]): Promise<void> {
  const [outDir, name = 'simd'] = argv;
  if (outDir === undefined) {
    process.stderr.write('usage: node dist/scripts/make-hostile-archives.js <out-dir> [daemon-name]\n');
    process.exitCode = 64;
    return;
  }
  const written = await writeArchives(outDir, {
    ...goodArchives(name),
    ...hostileArchives({ name, escapeRelative: '../../chainvisor-escape', escapeAbsolute: '/tmp/chainvisor-escape' }),
  });
  for (const file of Object.values(written)) process.stdout.write(`${file}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv.slice(2));
}
