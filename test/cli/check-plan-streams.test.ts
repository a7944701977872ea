/**
 * `chainvisor check-plan` on the compressed streams go-getter reads and on the ones an attacker would
 * send (#31), each served by a local server with its right checksum, through bin/chainvisor.js or the
 * release executable: pzstd's layout (a skippable frame before each frame) and `xz --check=sha256` are
 * read whole; an xz with a BCJ filter or a dictionary over 64 MiB is refused as unsupported, naming it;
 * a zstd frame asking for a 2 GiB window, bytes after the end of a stream, and a compressed archive
 * holding another compressed archive are refused; a bomb with the wrong checksum is a mismatch, never
 * unpacked, and with its right one refused by the inflate guard.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { execa } from 'execa';

import {
  compress,
  compressors,
  pzstd,
  withTrailingGarbage,
  xzDictionary,
  zstdHugeWindow,
  zstdRleBomb,
  zstdSkippable,
} from '../../scripts/make-compressed-archives.js';
import { fakeBinary, gzip, tar } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { chainvisorCommand } from '../support/chainvisor-command.js';
import { binariesInfo, withChecksum } from '../support/download-kit.js';
import { startFaultServer } from '../support/fault-server.js';

const host = hostPlatform();

/** A binary of a few hundred KiB, so that the streams hold several blocks and frames. */
const binary = Buffer.concat([Buffer.from(`${fakeBinary()}exit 0\n`), Buffer.alloc(300_000, 'chainvisor ')]);

/** `wrongChecksum`: a checksum that is not the file's. */
async function checkPlan(data: Buffer, wrongChecksum = false): Promise<{ exitCode: number | undefined; out: string }> {
  const s = await startFaultServer();
  try {
    s.route('/simd', { body: data });
    const url = wrongChecksum ? `${s.url('/simd')}?checksum=sha256:${'0'.repeat(64)}` : withChecksum(s.url('/simd'), data);
    const [file, args] = chainvisorCommand(['check-plan', '--info', binariesInfo({ [host]: url })]);
    // A cap that bounds what a bomb could write even where nothing else stops it.
    const env = { DAEMON_NAME: 'simd', CHAINVISOR_DOWNLOAD_RETRIES: '0', CHAINVISOR_EXTRACT_MAX_BYTES: String(256 << 20) };
    const r = await execa(file, args, { env, reject: false });
    return { exitCode: r.exitCode, out: `${r.stdout}\n${r.stderr}` };
  } finally {
    await s.close();
  }
}

async function accepted(data: Buffer, format: string): Promise<void> {
  const r = await checkPlan(data);
  assert.equal(r.exitCode, 0, r.out);
  assert.ok(r.out.includes(`(plain executable) (${format})`), r.out);
  assert.match(r.out, /ok: v2\.0\.0/);
}

async function refused(data: Buffer, code: string, message: RegExp, wrongChecksum = false): Promise<string> {
  const r = await checkPlan(data, wrongChecksum);
  assert.equal(r.exitCode, 79, r.out);
  assert.match(r.out, new RegExp(`code: ${code}`));
  assert.match(r.out, message);
  assert.doesNotMatch(r.out, /this is a bug|\n\s+at /);
  return r.out;
}

test('pzstd output (a skippable frame before each of 3 frames) is read whole', async () => {
  await accepted(pzstd(binary, 3), 'zstd');
});

test('a zstd stream that begins with a skippable frame of metadata is read', async () => {
  await accepted(Buffer.concat([zstdSkippable(Buffer.from('made by a release script')), compress('zstd', binary)]), 'zstd');
});

test('xz --check=sha256 is read, and its check verified', async () => {
  await accepted(compress('xz', binary, ['-6', '--check=sha256']), 'xz');
});

test('xz --check=sha256 with a block whose SHA-256 is wrong is refused as corrupt', async () => {
  const xz = compress('xz', binary, ['-6', '--check=sha256']);
  // The last block's check is the 32 bytes before the index; the index and footer follow it.
  const footer = xz.subarray(xz.length - 12);
  const indexSize = (footer.readUInt32LE(4) + 1) * 4;
  const check = xz.length - 12 - indexSize - 32;
  xz[check] = (xz[check] as number) ^ 0xff;
  await refused(xz, 'CHAINVISOR_ARCHIVE_INVALID', /xz data: corrupt data \(a block does not match its SHA-256 check\)/);
});

test('xz with the x86 BCJ filter: refused as unsupported, naming the filter, with a hint', async () => {
  const out = await refused(compress('xz', binary, ['--x86', '--lzma2']), 'CHAINVISOR_ARCHIVE_UNSUPPORTED', /the x86 BCJ filter \(made with xz --x86\)/);
  assert.doesNotMatch(out, /LZMA2, x86, ARM/, 'never says x86 is supported');
  assert.match(out, /hint: .*plain `xz`, no BCJ or delta filter/);
});

test('xz with the delta filter: refused as unsupported, naming it', async () => {
  await refused(compress('xz', binary, ['--delta=dist=4', '--lzma2']), 'CHAINVISOR_ARCHIVE_UNSUPPORTED', /the delta filter/);
});

test('xz whose header asks for a 1 GiB dictionary: refused before the decoder allocates it', async () => {
  await refused(xzDictionary(binary, 36), 'CHAINVISOR_ARCHIVE_UNSUPPORTED', /dictionary is 1\.0 GiB, larger than the 64 MiB the decoder reads/);
});

test('zstd whose frame asks for a 2 GiB window: refused', async () => {
  await refused(zstdHugeWindow(), 'CHAINVISOR_ARCHIVE_INVALID', /zstd data: a frame needs a larger window than the decoder allows/);
});

test('a zstd bomb: with the wrong checksum a mismatch, never unpacked; with its right one refused as a bomb', async () => {
  const bomb = zstdRleBomb(9_700_000_000);
  const out = await refused(bomb, 'CHAINVISOR_CHECKSUM_MISMATCH', /checksum mismatch for /, true);
  assert.match(out, / MISMATCH /, 'the table says the checksum did not match');
  assert.doesNotMatch(out, /CHAINVISOR_ARCHIVE_TOO_LARGE/, 'the archive was not unpacked');
  await refused(bomb, 'CHAINVISOR_ARCHIVE_TOO_LARGE', /expands more than 1000 times its compressed size/);
});

for (const compressor of compressors) {
  test(`${compressor}: bytes after the end of the stream are refused, not ignored`, async () => {
    await refused(withTrailingGarbage(compress(compressor, binary)), 'CHAINVISOR_ARCHIVE_INVALID', new RegExp(`${compressor} data: `));
  });

  test(`${compressor}: a stream that holds another compressed stream (nested) is refused, never unpacked twice`, async () => {
    await refused(
      compress(compressor, gzip(tar([{ name: 'bin/simd', body: fakeBinary(), mode: 0o755 }]))),
      'CHAINVISOR_UNKNOWN_FORMAT',
      /neither a tar nor an executable/,
    );
  });
}
