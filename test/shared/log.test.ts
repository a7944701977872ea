/**
 * What an error looks like in a log line: no stack for what chainvisor expects (an operating-system
 * error, a coded error, a cancellation), a stack for a bug, and nothing an operator needs dropped.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { ChainvisorError } from '../../src/shared/errors/index.js';
import { createLogger, serializeError } from '../../src/shared/log.js';

const read = (error: unknown) => serializeError(error) as Record<string, unknown>;

test('expected errors carry what happened and where, without a stack', () => {
  let enoent: unknown;
  try {
    fs.readFileSync('/nonexistent/status.json');
  } catch (error) {
    enoent = error;
  }
  const system = read(enoent);
  assert.equal(system.code, 'ENOENT');
  assert.equal(system.syscall, 'open');
  assert.equal(system.path, '/nonexistent/status.json');
  assert.equal(system.stack, undefined);
  const coded = read(new ChainvisorError('CHAINVISOR_DOWNLOAD_IO', 'failed', { hint: 'do this', cause: enoent }));
  assert.equal(coded.stack, undefined);
  assert.equal(coded.hint, 'do this');
  assert.equal((coded.cause as Record<string, unknown>).code, 'ENOENT');
  const abort = new Error('This operation was aborted');
  abort.name = 'AbortError';
  assert.equal(read(abort).stack, undefined);
});

test('a bug keeps its stack, Node argument errors included; a cause that is not an Error is kept as text', () => {
  let argument: unknown;
  try {
    fs.readFileSync(undefined as unknown as string);
  } catch (error) {
    argument = error;
  }
  assert.match(String(read(argument).code), /^ERR_/);
  assert.match(String(read(argument).stack), /at /);
  assert.match(String(read(new TypeError('x is undefined')).stack), /TypeError: x is undefined/);
  assert.equal(read(new Error('outer', { cause: 'the reason' })).cause, 'the reason');
  const many = read(new AggregateError([new Error('one'), new Error('two')], 'both failed'));
  assert.deepEqual(
    (many.errors as Array<Record<string, unknown>>).map((e) => e.message),
    ['one', 'two'],
  );
});

test('a human-readable log line quotes outside text escaped: no colour code, no bidi override, no line of its own', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainvisor-log-'));
  const file = path.join(dir, 'log');
  const fd = fs.openSync(file, 'w');
  try {
    const logger = createLogger({ pretty: true, color: false, fd, journalStream: undefined });
    logger.warn({ upgrade: 'v2' }, 'the RPC said: %s', '\u001b[31mred\u202e\nchainvisor: error: forged');
  } finally {
    fs.closeSync(fd);
  }
  const text = fs.readFileSync(file, 'utf8');
  fs.rmSync(dir, { recursive: true, force: true });
  assert.match(text, /the RPC said: \\u\{1b\}\[31mred\\u\{202e\}/);
  assert.doesNotMatch(text, /[\u001b\u202e]/);
  assert.doesNotMatch(text, /^chainvisor: error: forged/m);
});
