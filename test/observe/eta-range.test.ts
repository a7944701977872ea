/**
 * A plan's height is chain data: one far past Date's range (10^15 on a 0.1 s chain) leaves `status` and
 * `/metrics` working, with no estimate and the reason, through the command as operators run it.
 */
import assert from 'node:assert/strict';
import test from 'node:test';

import { QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { commitResult, startFakeRpc, statusResult } from '../support/fake-rpc.js';
import { makeHome, waitFor } from '../support/home.js';
import { endpointOf } from '../support/observe-kit.js';
import { unusedPort } from '../support/ports.js';

const self = 'A'.repeat(40);
const farHeight = 1_000_000_000_000_000;

test('a plan at height 10^15 on a fast chain: status says there is no estimate and why, /metrics answers without an ETA sample', async (t) => {
  const rpc = await startFakeRpc();
  let height = 1000;
  const tick = (): void => rpc.answer('/status', { result: statusResult({ height, address: self, power: '10' }) });
  tick();
  const timer = setInterval(() => {
    height += 1;
    tick();
  }, 100);
  const plan = QueryCurrentPlanResponse.encode(QueryCurrentPlanResponse.fromPartial({ plan: { name: 'v2', height: BigInt(farHeight), info: '' } })).finish();
  rpc.answer('/abci_query', { result: { response: { code: 0, value: Buffer.from(plan).toString('base64') } } });
  rpc.answer('/commit', { result: commitResult({ height: 10, time: new Date().toISOString(), signers: [self] }) });
  const h = await makeHome({
    CHAINVISOR_RPC_ADDRESS: rpc.address,
    DAEMON_GRPC_ADDRESS: `127.0.0.1:${await unusedPort()}`,
    CHAINVISOR_PLAN_POLL_INTERVAL: '1s',
    CHAINVISOR_HTTP_ADDRESS: '127.0.0.1:0',
  });
  await h.cliOk(['init', await h.fakeNode({ label: 'genesis' })]);
  const run = h.spawn(['run', 'start']);
  t.after(async () => {
    run.kill('SIGTERM');
    await run.catch(() => undefined);
    clearInterval(timer);
    await rpc.close();
    await h.cleanup();
  });
  const endpoint = await endpointOf(h);

  let doc: { pending: { height: number; eta: unknown; etaProblem?: string } | null } | undefined;
  await waitFor(
    async () => {
      const status = await h.cli(['status', '--output', 'json']);
      assert.equal(status.exitCode, 0, `status fails: ${status.stderr}`);
      doc = JSON.parse(status.stdout) as typeof doc;
      return doc?.pending?.etaProblem !== undefined;
    },
    'status knows the block time',
    30_000,
  );
  assert.equal(doc?.pending?.height, farHeight);
  assert.equal(doc?.pending?.eta, null);
  assert.match(doc?.pending?.etaProblem ?? '', /^height 1000000000000000 is too far ahead to be a date at \d+ ms a block$/);

  const text = await h.cli(['status']);
  assert.equal(text.exitCode, 0, text.stderr);
  assert.match(text.stdout, /^eta +v2 at height 1000000000000000: none \(height 1000000000000000 is too far ahead to be a date/m);

  const metrics = await fetch(`${endpoint}/metrics`);
  const body = await metrics.text();
  assert.equal(metrics.status, 200, body);
  assert.match(body, /^chainvisor_upgrade_pending\{[^}]*name="v2"[^}]*\} 1$/m);
  assert.doesNotMatch(body, /^chainvisor_upgrade_eta_seconds\{/m);
});
