/**
 * Text from outside reaches the terminal and the log only escaped (issue #44): an RPC's error message with
 * colour codes, a window-title escape, a bidi override and a newline that would forge a line of its own.
 */
import assert from 'node:assert/strict';
import test from 'node:test';

import { startFakeRpc } from '../support/fake-rpc.js';
import { makeHome } from '../support/home.js';
import { unusedPort } from '../support/ports.js';

const hostile = '\u001b[31mred\u001b[0m \u001b]0;owned\u0007 \u202eevil\nchainvisor: error: forged line\r\nchainvisor: code: CHAINVISOR_FORGED';

test('a command line quoted in an error is printed escaped: a bidi override and a forged line stay inside the error line', async (t) => {
  const h = await makeHome();
  t.after(() => h.cleanup());
  const r = await h.cli(['status\u202eevil\nchainvisor: code: CHAINVISOR_FORGED']);
  assert.equal(r.exitCode, 64, r.stderr);
  assert.match(r.stderr, /^chainvisor: error: unknown command .*\\u\{202e\}evil/m);
  assert.doesNotMatch(r.stderr, /\u202e/);
  assert.doesNotMatch(r.stderr, /^chainvisor: code: CHAINVISOR_FORGED/m);
  assert.equal((r.stderr.match(/^chainvisor: code: /gm) ?? []).length, 1, r.stderr);
});

test("an RPC's error text is printed escaped: no escape sequence, no bidi override, no line of its own", async (t) => {
  const rpc = await startFakeRpc();
  rpc.answer('/abci_query', { body: JSON.stringify({ jsonrpc: '2.0', id: -1, error: { code: -32603, message: 'Internal error', data: hostile } }) });
  rpc.answer('/status', { body: JSON.stringify({ jsonrpc: '2.0', id: -1, error: { code: -32603, message: 'Internal error', data: hostile } }) });
  const h = await makeHome({ CHAINVISOR_RPC_ADDRESS: rpc.address, DAEMON_GRPC_ADDRESS: `127.0.0.1:${await unusedPort()}` });
  t.after(async () => {
    await rpc.close();
    await h.cleanup();
  });
  await h.cliOk(['init', await h.fakeNode({ label: 'genesis' })]);
  const r = await h.cli(['prepare-upgrade'], { CHAINVISOR_LOG_FORMAT: 'text' });
  const out = r.stdout + r.stderr;
  assert.notEqual(r.exitCode, 0, out);
  assert.match(out, /\\u\{1b\}\[31mred/, `the RPC's text is quoted, escaped:\n${out}`);
  assert.doesNotMatch(out, /[\u001b\u0007\u202e\r]/, 'no control or format character reaches the output');
  assert.doesNotMatch(out, /^chainvisor: (error: forged|code: CHAINVISOR_FORGED)/m, 'no forged line');
  assert.equal((out.match(/^chainvisor: code: /gm) ?? []).length, 1, out);
});
