/**
 * The streaming side of the one reader: large files (a genesis, a binary to hash or copy) are opened by
 * the same rule as the small ones, then streamed from the checked descriptor, never past the size they
 * had when opened.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { copyRegular, hashFile, openReadStream, sameContent } from '../../../src/shared/fsread/index.js';
import { makeNotFile, notFileReason } from '../../support/not-files.js';

describe('openReadStream and what is built on it', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-fsstream-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  test('a FIFO, a link to /dev/zero, a socket, a link loop, a folder: refused without blocking, by each reader', async () => {
    for (const kind of ['fifo', 'zero', 'socket', 'loop', 'folder'] as const) {
      const file = path.join(dir, kind);
      const close = await makeNotFile(file, kind);
      try {
        for (const read of [await openReadStream(file), await hashFile(file), await copyRegular(file, path.join(dir, `${kind}.copy`), { mode: 0o600 })]) {
          assert.equal(read.status, 'refused', kind);
          assert.match((read as { reason: string }).reason, notFileReason[kind], kind);
        }
        assert.equal(await sameContent(file, file), false, kind);
        await assert.rejects(fs.access(path.join(dir, `${kind}.copy`)), 'no copy begun');
      } finally {
        await close();
      }
    }
    assert.deepEqual(await openReadStream(path.join(dir, 'none')), { status: 'missing' });
  });

  test('a file that grows while it is read is read as it was when opened', async () => {
    const file = path.join(dir, 'growing');
    const first = randomBytes(3 * 1024 * 1024);
    await fs.writeFile(file, first);
    const read = await openReadStream(file, { highWaterMark: 64 * 1024 });
    assert.equal(read.status, 'ok');
    if (read.status !== 'ok') return;
    const chunks: Buffer[] = [];
    for await (const chunk of read.stream as AsyncIterable<Buffer>) {
      // A writer appends as fast as it is read: without the bound at the open, this would never end.
      if (chunks.length < 200) await fs.appendFile(file, randomBytes(64 * 1024));
      chunks.push(chunk);
    }
    assert.ok(Buffer.concat(chunks).equals(first));
  });

  test('hashFile, copyRegular and sameContent on regular files (links followed); an empty file; a limit', async () => {
    const body = randomBytes(2 * 1024 * 1024 + 17);
    const file = path.join(dir, 'simd');
    await fs.writeFile(file, body);
    await fs.symlink(file, path.join(dir, 'link'));
    const digest = await hashFile(path.join(dir, 'link'));
    assert.deepEqual(digest, { status: 'ok', hex: createHash('sha256').update(body).digest('hex'), bytes: body.length });
    assert.deepEqual(await copyRegular(file, path.join(dir, 'copy'), { mode: 0o700 }), { status: 'ok', bytes: body.length });
    assert.ok((await fs.readFile(path.join(dir, 'copy'))).equals(body));
    assert.equal(await sameContent(file, path.join(dir, 'copy')), true);
    await fs.writeFile(path.join(dir, 'other'), Buffer.concat([body.subarray(1), Buffer.from('x')]));
    assert.equal(await sameContent(file, path.join(dir, 'other')), false, 'same size, other bytes');
    await fs.writeFile(path.join(dir, 'empty'), '');
    assert.deepEqual(await hashFile(path.join(dir, 'empty')), { status: 'ok', hex: createHash('sha256').digest('hex'), bytes: 0 });
    assert.match(((await hashFile(file, { maxBytes: 1024 })) as { reason: string }).reason, /too large \(2097169 bytes, over the limit of 1024 bytes\)/);
  });

  test('an aborted signal stops the read: it is thrown, not taken for a refusal', async () => {
    const file = path.join(dir, 'big');
    await fs.writeFile(file, randomBytes(4 * 1024 * 1024));
    const abort = new AbortController();
    abort.abort();
    await assert.rejects(hashFile(file, { signal: abort.signal }), { name: 'AbortError' });
  });
});
