/**
 * The genesis scanner opens its file by the one rule: a FIFO (no writer) or a link to /dev/zero is a
 * refusal at once, where the scan waited for ever or ran at 100 % CPU through endless zeros; a stop
 * signal ends a long scan. (What it finds in a real genesis: test/rehearsal/identity.test.ts.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { readGenesisFacts } from '../../../src/shared/fsread/index.js';
import { makeNotFile, notFileReason } from '../../support/not-files.js';

describe('readGenesisFacts', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-genesis-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  test('a FIFO, a link to /dev/zero, a socket, a link loop, a folder: refused, never scanned', async () => {
    for (const kind of ['fifo', 'zero', 'socket', 'loop', 'folder'] as const) {
      const file = path.join(dir, `${kind}.json`);
      const close = await makeNotFile(file, kind);
      try {
        const read = await readGenesisFacts(file, { chainIdOnly: true });
        assert.equal(read.status, 'refused', kind);
        assert.match((read as { reason: string }).reason, notFileReason[kind], kind);
      } finally {
        await close();
      }
    }
    assert.deepEqual(await readGenesisFacts(path.join(dir, 'none.json')), { status: 'missing' });
  });

  test('a stop signal ends the scan of a large genesis whose chain_id comes last', async () => {
    const file = path.join(dir, 'genesis.json');
    await fs.writeFile(file, `{"app_state":{"x":"${'q'.repeat(32 * 1024 * 1024)}"},"chain_id":"late-1"}`);
    assert.deepEqual(await readGenesisFacts(file, { chainIdOnly: true }), { status: 'ok', facts: { chainId: 'late-1', prefix: undefined } });
    const abort = new AbortController();
    const scan = readGenesisFacts(file, { chainIdOnly: true, signal: abort.signal });
    abort.abort();
    await assert.rejects(scan, { name: 'AbortError' });
  });
});
