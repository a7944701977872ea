/** The defensive reader under upgrade-info.json and the config files: what sits at the path decides. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { readBounded, readBoundedSync } from '../../../src/shared/fsread/index.js';

describe('readBounded', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-fsread-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const both = async (file: string, max: number) => {
    const a = await readBounded(file, max);
    assert.deepEqual(readBoundedSync(file, max), a, 'the sync reader agrees');
    return a;
  };

  test('a regular file (also behind a link) is read whole', async () => {
    await fs.writeFile(path.join(dir, 'a.json'), '{"x":1}');
    await fs.symlink('a.json', path.join(dir, 'link.json'));
    assert.deepEqual(await both(path.join(dir, 'a.json'), 100), { status: 'ok', text: '{"x":1}' });
    assert.deepEqual(await both(path.join(dir, 'link.json'), 100), { status: 'ok', text: '{"x":1}' });
    assert.deepEqual(await both(path.join(dir, 'none.json'), 100), { status: 'missing' });
  });

  test('a FIFO, a folder, a socket, a device behind a link, a link loop: refused without blocking', async () => {
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    const socket = net.createServer();
    await new Promise<void>((resolve) => socket.listen(path.join(dir, 'socket'), resolve));
    await fs.mkdir(path.join(dir, 'folder'));
    await fs.symlink('/dev/zero', path.join(dir, 'zero'));
    await fs.symlink('loop', path.join(dir, 'loop'));
    const reasons = {
      fifo: /FIFO/,
      folder: /a folder, not a regular file/,
      socket: /a socket, not a regular file/,
      zero: /a character device, not a regular file/,
      loop: /symbolic link loop \(ELOOP\)/,
    };
    try {
      for (const [name, reason] of Object.entries(reasons)) {
        const read = await both(path.join(dir, name), 100);
        assert.equal(read.status, 'refused', name);
        assert.match((read as { reason: string }).reason, reason, name);
      }
    } finally {
      socket.close();
    }
  });

  test('over the limit: refused by its size, the sparse giant included', async () => {
    await fs.writeFile(path.join(dir, 'big'), Buffer.alloc(101, 0x61));
    await fs.writeFile(path.join(dir, 'exact'), Buffer.alloc(100, 0x61));
    const handle = await fs.open(path.join(dir, 'sparse'), 'w');
    await handle.truncate(64 * 1024 ** 3);
    await handle.close();
    assert.deepEqual(await both(path.join(dir, 'big'), 100), { status: 'refused', reason: 'it is too large (101 bytes, over the limit of 100 bytes)' });
    assert.equal((await both(path.join(dir, 'exact'), 100)).status, 'ok');
    assert.match(((await both(path.join(dir, 'sparse'), 1024 * 1024)) as { reason: string }).reason, /68719476736 bytes, over the limit of 1048576 bytes/);
  });
});
