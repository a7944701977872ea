/**
 * The one JSON-RPC client (src/chain/json-rpc.ts) on a transport that answers what each test sets: the
 * order in which an answer is judged (the node's error first, then the HTTP status, then the text, the
 * envelope, the result and its schema), each failure one RpcProblem.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as v from 'valibot';

import { createJsonRpcClient, RpcFailure, type RpcProblem, type RpcTransport } from '../../src/chain/json-rpc.js';

const bounds = { maxBytes: 1000, maxDepth: 8, maxContainers: 50 };
const answer = v.object({ height: v.number() });

/** A client whose transport answers `statusCode` and `text`, and records what was asked. */
function clientAnswering(statusCode: number, text: string) {
  const asked: Array<{ route: string; params: object; maxBytes: number }> = [];
  const transport: RpcTransport = {
    send: (route, params, maxBytes) => {
      asked.push({ route, params, maxBytes });
      return Promise.resolve({ statusCode, body: Buffer.from(text) });
    },
    close: () => undefined,
  };
  return { client: createJsonRpcClient(transport, bounds), asked };
}

async function problemOf(statusCode: number, text: string): Promise<RpcProblem> {
  try {
    await clientAnswering(statusCode, text).client.call('status', answer);
  } catch (error) {
    assert.ok(error instanceof RpcFailure, String(error));
    return error.problem;
  }
  assert.fail('expected an RpcFailure');
}

test('the result, checked against the schema; the route, params and size bound handed to the transport', async () => {
  const { client, asked } = clientAnswering(200, JSON.stringify({ jsonrpc: '2.0', id: -1, result: { height: 7 } }));
  assert.deepEqual(await client.call('commit', answer, { params: { height: '7' }, maxBytes: 100 }), { height: 7 });
  assert.deepEqual(asked, [{ route: 'commit', params: { height: '7' }, maxBytes: 100 }]);
});

test('each failure is one problem, judged in order', async () => {
  const error = JSON.stringify({ error: { code: -32603, message: 'Internal error', data: 'height 10 is not available' } });
  assert.deepEqual(await problemOf(500, error), { kind: 'error', said: 'height 10 is not available' });
  assert.deepEqual(await problemOf(500, JSON.stringify({ error: { data: 5 } })), { kind: 'error', said: undefined });
  assert.deepEqual(await problemOf(502, '<html>Bad Gateway</html>'), { kind: 'http', statusCode: 502 });
  assert.deepEqual(await problemOf(200, 'x'.repeat(1001)), { kind: 'too-large', maxBytes: 1000 });
  assert.equal((await problemOf(200, `{"result":${'['.repeat(9)}${']'.repeat(9)}}`)).kind, 'not-json');
  assert.equal((await problemOf(200, '"a string"')).kind, 'not-rpc');
  assert.deepEqual(await problemOf(200, '[1,2,3]'), { kind: 'no-result' });
  assert.deepEqual(await problemOf(200, '{"result":null}'), { kind: 'no-result' });
  assert.match(JSON.stringify(await problemOf(200, '{"result":{"height":"7"}}')), /"kind":"shape","reason":"height: .*number/);
});

test('an `error` of null is no error', async () => {
  const { client } = clientAnswering(200, JSON.stringify({ result: { height: 1 }, error: null }));
  assert.deepEqual(await client.call('status', answer), { height: 1 });
});
