/**
 * The formats table (src/verify/archive/formats.ts) drives everything a format needs, so that a row
 * cannot be half-wired (#33): each row's sample is recognised by that row alone and begins with the
 * signature the docs show; `unpack` reads it with the row's decoder or extractor and names it by
 * the row; the CHAINVISOR_UNKNOWN_FORMAT hint (from both places it is
 * thrown), the formats lines of `check-plan --help` and the docs' table name every row. A row without
 * a sample here does not compile. (test/cli/check-plan-formats.test.ts runs `check-plan --help`.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

import { compress } from '../../../scripts/make-compressed-archives.js';
import { fakeBinary, tar, zip } from '../../../scripts/make-hostile-archives.js';
import { ChainvisorError } from '../../../src/shared/errors/index.js';
import { type Compression, detectFromHead, formats, formatsHelp, renderFormatsTable, unknownFormatHint, unpack } from '../../../src/verify/index.js';
import { tempDir } from '../../support/download-kit.js';

const repo = path.resolve(fileURLToPath(import.meta.url), '../../../../..');
const limits = { maxBytes: 4 << 20, maxEntries: 100 };
const subject = { what: 'linux/amd64 binary' };

type Row = (typeof formats)[number];
const entries = [{ name: 'bin/simd', body: fakeBinary(), mode: 0o755 }];

/** How to make a real file of each row: a compression compresses what it is given, an archive holds bin/simd. */
const compressors: Record<Compression, (data: Buffer) => Buffer> = {
  gzip: (data) => compress('gzip', data),
  bzip2: (data) => compress('bzip2', data),
  xz: (data) => compress('xz', data),
  zstd: (data) => compress('zstd', data),
};
const archives: Record<Exclude<Row['name'], Compression>, () => Buffer> = {
  zip: () => zip(entries),
  tar: () => tar(entries),
};

/** Each way a row's file can be: a compression with a tar or an executable inside, or an archive. */
interface Sample {
  row: Row;
  what: string;
  data: Buffer;
  format: string;
  from: string;
}

const samples: Sample[] = formats.flatMap((row): Sample[] => {
  if (row.kind === 'archive') return [{ row, what: row.name, data: archives[row.name](), format: row.name, from: 'bin/simd' }];
  const make = compressors[row.name];
  return [
    { row, what: `${row.name} with a tar inside`, data: make(tar(entries)), format: row.tar.name, from: 'bin/simd' },
    { row, what: `${row.name} with an executable inside`, data: make(Buffer.from(fakeBinary())), format: row.name, from: '(plain executable)' },
  ];
});

async function downloaded(t: TestContext, data: Buffer): Promise<{ file: string; dir: string }> {
  const dir = await tempDir(t);
  const file = path.join(dir, 'download');
  await fs.writeFile(file, data);
  return { file, dir };
}

async function refusedHint(t: TestContext, data: Buffer): Promise<string | undefined> {
  const { file, dir } = await downloaded(t, data);
  const error = await unpack({ subject, file, tree: path.join(dir, 'tree'), name: 'simd', limits }).then(
    () => assert.fail('accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ChainvisorError, String(error));
  assert.equal(error.code, 'CHAINVISOR_UNKNOWN_FORMAT', error.message);
  return error.hint;
}

describe('each row of the formats table', () => {
  for (const { row, what, data, format, from } of samples) {
    test(`${what}: recognised by its row alone, from the signature the docs show`, () => {
      assert.deepEqual(
        formats.filter((candidate) => candidate.magic(data.subarray(0, 4096))).map((candidate) => candidate.name),
        [row.name],
      );
      const detected = detectFromHead(data.subarray(0, 4096));
      assert.equal(detected.format === 'unknown' ? undefined : detected.row, row);
      const { at, hex } = row.signature;
      const signature = Buffer.from(hex.replaceAll(' ', ''), 'hex');
      assert.deepEqual(data.subarray(at, at + signature.length), signature);
    });

    test(`${what}: unpacked with the row's ${row.kind === 'compression' ? 'decoder' : 'extractor'}, named ${format}`, async (t) => {
      const { file, dir } = await downloaded(t, data);
      const result = await unpack({ subject, file, tree: path.join(dir, 'tree'), name: 'simd', limits });
      assert.equal(result.format, format);
      assert.equal(result.from, from);
      assert.equal(await fs.readFile(result.binary, 'utf8'), fakeBinary());
    });
  }
});

test('the CHAINVISOR_UNKNOWN_FORMAT hint names every row, wherever it is thrown', async (t) => {
  const expected = [
    ...formats.flatMap((row) => row.extensions.map((extension) => `.${extension}`)),
    ...formats.flatMap((row) => (row.kind === 'compression' ? [`${row.name}-`, ...row.tar.extensions.map((extension) => `.${extension}`)] : [])),
  ];
  for (const name of expected) assert.ok(unknownFormatHint.includes(name), `${name} is not in the hint: ${unknownFormatHint}`);
  // An HTML page (unpack), and a compressed one (the compressed stream's extractor).
  const page = Buffer.from('<!DOCTYPE html><html>Access denied</html>\n'.repeat(200));
  assert.equal(await refusedHint(t, page), unknownFormatHint);
  for (const row of formats) {
    if (row.kind === 'compression') assert.equal(await refusedHint(t, compressors[row.name](page)), unknownFormatHint, row.name);
  }
});

test("check-plan --help's formats lines name every row, a compressed tar by its name", () => {
  const listed = formatsHelp.split(/[\s,:]+/).map((word) => word.replace(/\.$/, ''));
  for (const row of formats) {
    assert.ok(listed.includes(row.name), `${row.name} is not in: ${formatsHelp}`);
    if (row.kind === 'compression') assert.ok(listed.includes(row.tar.name), `${row.tar.name} is not in: ${formatsHelp}`);
  }
});

test("docs/download.md's table of formats is generated from the table and up to date", async () => {
  const table = renderFormatsTable();
  for (const row of formats) assert.ok(table.includes(`\`${row.name}\``), `${row.name} has no line in the docs' table`);
  const doc = await fs.readFile(path.join(repo, 'docs', 'download.md'), 'utf8');
  assert.ok(doc.includes(`\n${table}\n`), "run 'npm run build && node scripts/regen-docs.mjs'");
});

test("every name go-getter's Decompressors map knows is a row's", () => {
  const goGetter = ['bz2', 'gz', 'xz', 'tar', 'tar.bz2', 'tar.gz', 'tar.xz', 'tar.zst', 'tbz2', 'tgz', 'txz', 'tzst', 'zip', 'zst'];
  const ours: string[] = formats.flatMap((row) => [...row.extensions, ...(row.kind === 'compression' ? row.tar.extensions : [])]);
  assert.deepEqual(
    goGetter.filter((name) => !ours.includes(name)),
    [],
  );
});
