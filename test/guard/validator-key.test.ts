/**
 * This validator's address from its key file (issue #32): only `address` is kept, nothing of the
 * private key is ever in a result or a reason, and the file is read bounded (a FIFO, a huge file).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { readValidatorAddress } from '../../src/guard/validator-key.js';

const privateKey = 'c2VjcmV0LXByaXZhdGUta2V5LWJ5dGVz';

async function dir(t: TestContext): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'validator-key-'));
  t.after(() => fs.rm(d, { recursive: true, force: true }));
  return d;
}

test('the address, upper-cased, and nothing else of the file', async (t) => {
  const file = path.join(await dir(t), 'priv_validator_key.json');
  const address = 'ab'.repeat(20);
  await fs.writeFile(
    file,
    JSON.stringify({
      address,
      pub_key: { type: 'tendermint/PubKeyEd25519', value: 'cHVi' },
      priv_key: { type: 'tendermint/PrivKeyEd25519', value: privateKey },
    }),
  );
  const read = await readValidatorAddress(file);
  assert.deepEqual(read, { status: 'ok', address: address.toUpperCase(), file });
  assert.doesNotMatch(JSON.stringify(read), /c2VjcmV0|PrivKey|pub_key/);
});

test('a broken or foreign file is unreadable, and the reason never quotes it', async (t) => {
  const d = await dir(t);
  const cases: Record<string, string> = {
    'truncated.json': `{"address":"${'AB'.repeat(20)}","priv_key":{"value":"${privateKey}"`,
    'no-address.json': `{"priv_key":{"value":"${privateKey}"}}`,
    'short-address.json': `{"address":"ABC","priv_key":{"value":"${privateKey}"}}`,
  };
  const reasons: string[] = [];
  for (const [name, text] of Object.entries(cases)) {
    await fs.writeFile(path.join(d, name), text);
    const read = await readValidatorAddress(path.join(d, name));
    assert.equal(read.status, 'unreadable', name);
    if (read.status === 'unreadable') reasons.push(read.reason);
  }
  assert.equal(reasons[0], 'it is not JSON');
  assert.match(reasons[1] as string, /^its address: /);
  assert.match(reasons[2] as string, /^its address: not 40 hexadecimal digits/);
  assert.doesNotMatch(reasons.join('\n'), /c2VjcmV0|priv/);
});

test('no file: missing; a FIFO or a huge file: refused without reading it', async (t) => {
  const d = await dir(t);
  assert.equal((await readValidatorAddress(path.join(d, 'none.json'))).status, 'missing');
  const fifo = path.join(d, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  const fromFifo = await readValidatorAddress(fifo);
  assert.equal(fromFifo.status, 'unreadable');
  assert.match(fromFifo.status === 'unreadable' ? fromFifo.reason : '', /FIFO/);
  const huge = path.join(d, 'huge.json');
  await fs.writeFile(huge, Buffer.alloc(1024 * 1024, 0x20));
  const fromHuge = await readValidatorAddress(huge);
  assert.match(fromHuge.status === 'unreadable' ? fromHuge.reason : '', /too large/);
});
