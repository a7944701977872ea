/**
 * The scratch node's height (src/rehearsal/scratch-node.ts, rpcHeight): read from its RPC as the node's
 * own RPC is read, bounded and checked; undefined while it does not answer, or answers something else.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { rpcHeight } from '../../src/rehearsal/scratch-node.js';
import { startFakeRpc } from '../support/fake-rpc.js';
import { unusedPort } from '../support/ports.js';

test('the height of a scratch node that answers; undefined for none listening and for an answer of another shape', async (t) => {
  const rpc = await startFakeRpc();
  t.after(() => rpc.close());
  const port = Number(new URL(rpc.address.replace('tcp:', 'http:')).port);
  rpc.answer('/status', { result: { sync_info: { latest_block_height: '42' } } });
  assert.equal(await rpcHeight(port), 42);
  rpc.answer('/status', { result: { sync_info: { latest_block_height: '-1' } } });
  assert.equal(await rpcHeight(port), undefined);
  rpc.answer('/status', { endless: true });
  assert.equal(await rpcHeight(port), undefined);
  assert.equal(await rpcHeight(await unusedPort()), undefined);
});
