/** `<binary> version` before installing (CHAINVISOR_SMOKE_TEST). */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { smokeTest, SmokeTestError } from '../../src/verify/index.js';
import { tempDir } from '../support/download-kit.js';

async function script(dir: string, body: string): Promise<string> {
  const file = path.join(dir, 'simd');
  await fs.writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

test('passes with the first line the binary prints', async (t) => {
  const binary = await script(await tempDir(t), 'echo "v2.1.0"; echo "commit abc"');
  assert.equal(await smokeTest({ binary }), 'v2.1.0');
});

test('a non-zero exit fails with the output in the message', async (t) => {
  const binary = await script(await tempDir(t), 'echo "error while loading shared libraries: libwasmvm.so" >&2; exit 127');
  await assert.rejects(smokeTest({ binary }), (error: unknown) => {
    assert.ok(error instanceof SmokeTestError);
    assert.equal(error.code, 'CHAINVISOR_SMOKE_TEST_FAILED');
    assert.match(error.message, /exit code 127/);
    assert.match(error.message, /libwasmvm\.so/);
    return true;
  });
});

test('a binary that hangs is killed at the time limit', async (t) => {
  const binary = await script(await tempDir(t), 'exec sleep 30');
  await assert.rejects(smokeTest({ binary, timeoutMs: 200 }), { code: 'CHAINVISOR_SMOKE_TEST_FAILED', message: /no answer within 200 ms/ });
});

test('a file that cannot be executed at all (wrong format)', async (t) => {
  const dir = await tempDir(t);
  const binary = path.join(dir, 'simd');
  await fs.writeFile(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]), { mode: 0o755 });
  await assert.rejects(smokeTest({ binary }), { code: 'CHAINVISOR_SMOKE_TEST_FAILED' });
});
