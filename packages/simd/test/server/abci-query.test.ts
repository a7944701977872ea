/**
 * `cosmos.base.tendermint.v1beta1.Service/ABCIQuery` as the SDK's cmtservice answers it, read with
 * cosmjs-types' ServiceClientImpl on grpc-js and over REST: an empty path and any path outside
 * app/, store/, p2p/, custom/ (a gRPC method's included) refused with InvalidArgument; the others
 * answered by baseapp's Query, exactly as the CometBFT RPC's `abci_query` answers them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { status } from '@grpc/grpc-js';
import { Pairs } from 'cosmjs-types/cosmos/base/kv/v1beta1/kv.js';
import { type ABCIQueryResponse, ServiceClientImpl } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';

import { grpcError, grpcRpc } from '../support/grpc-client.js';
import { simFixture, startNode } from '../support/node-harness.js';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

test('ABCIQuery over gRPC and REST: cmtservice refusals, and baseapp answers equal to abci_query', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(3);
  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const service = new ServiceClientImpl(rpc);
  const ask = (path: string, data: Uint8Array = new Uint8Array(), height = 0n, prove = false) => service.ABCIQuery({ path, data, height, prove });

  // cmtservice's checks, before baseapp sees the query.
  const refusals: Array<[string, string]> = [
    ['', 'empty query path'],
    ['/cosmos.upgrade.v1beta1.Query/CurrentPlan', 'unsupported ABCI query path: /cosmos.upgrade.v1beta1.Query/CurrentPlan'],
    ['/sim/node', 'unsupported ABCI query path: /sim/node'],
    ['/', 'unsupported ABCI query path: /'],
  ];
  for (const [path, message] of refusals) {
    const error = await grpcError(ask(path));
    assert.deepEqual([error.code, error.details], [status.INVALID_ARGUMENT, message], path);
  }

  // baseapp's answers, the same as the RPC's abci_query at the same height.
  const height = 2n;
  const rpcAnswer = async (path: string, data: Uint8Array, prove: boolean) =>
    (await node.http('rpc', `/abci_query?path="${path}"&data=0x${Buffer.from(data).toString('hex')}&height=${height}&prove=${prove}`)).body.result.response;
  const same = async (path: string, data: Uint8Array = new Uint8Array(), prove = false): Promise<ABCIQueryResponse> => {
    const answer = await ask(path, data, height, prove);
    const over = await rpcAnswer(path, data, prove);
    const bytes = (b: Uint8Array) => (b.length === 0 ? null : base64(b));
    assert.deepEqual(
      { code: answer.code, log: answer.log, codespace: answer.codespace, height: String(answer.height), key: bytes(answer.key), value: bytes(answer.value) },
      {
        code: over.code,
        log: over.log,
        codespace: over.codespace,
        height: over.height,
        key: over.key === null ? null : over.key || null,
        value: over.value === null ? null : over.value || null,
      },
      path,
    );
    return answer;
  };
  const version = await same('/app/version');
  assert.deepEqual([version.code, version.codespace, version.height, Buffer.from(version.value).toString()], [0, 'sdk', height, 'genesis']);
  assert.equal((await same('app')).log, "expected second parameter to be either 'simulate' or 'version', neither was present: unknown request");
  assert.equal((await same('app/nosuch')).log, 'unknown query: [app nosuch]: unknown request');

  // store/<store>/subspace and /key: the raw entries of a module store at that height (the upgrade
  // module's versions, 0x2 + module name → big-endian version).
  const subspace = await same('/store/upgrade/subspace', Uint8Array.of(0x02));
  const pairs = Pairs.decode(subspace.value).pairs;
  const upgradeEntry = pairs.find((p) => Buffer.from(p.key).subarray(1).toString() === 'upgrade');
  assert.ok(upgradeEntry, pairs.map((p) => Buffer.from(p.key).toString()).join(','));
  const entry = await same('/store/upgrade/key', upgradeEntry.key);
  assert.deepEqual([entry.code, entry.height, base64(entry.key), base64(entry.value)], [0, height, base64(upgradeEntry.key), base64(upgradeEntry.value)]);
  assert.ok(Buffer.from(entry.value).readBigUInt64BE() > 0n);
  assert.equal((await same('/store/upgrade/key', Uint8Array.of(0x09))).value.length, 0); // no such key: nil value
  // The store module's own errors (codespace store).
  const storeError = async (path: string, data: Uint8Array) => {
    const answer = await same(path, data);
    return [answer.codespace, answer.code, answer.log, answer.height];
  };
  assert.deepEqual(await storeError('store/upgrade/key', new Uint8Array()), ['store', 3, 'query cannot be zero length: tx parse error', 0n]);
  assert.deepEqual(await storeError('store/nosuch/key', Uint8Array.of(1)), ['store', 4, 'no such store: nosuch: unknown request', 0n]);
  assert.deepEqual(await storeError('store/upgrade/other', Uint8Array.of(1)), ['store', 4, 'unexpected query path: /other: unknown request', 0n]);
  const proofAtOne = await ask('store/upgrade/key', Uint8Array.of(1), 1n, true);
  assert.deepEqual(
    [proofAtOne.codespace, proofAtOne.code, proofAtOne.log],
    ['sdk', 18, 'cannot query with proof when height <= 1; please provide a valid height: invalid request'],
  );

  assert.equal((await same('p2p/filter/addr/127.0.0.1:26656')).code, 0);
  assert.equal((await same('p2p/filter')).log, 'path should be p2p filter <addr|id> <parameter>: unknown request');
  const custom = await same('custom/gov/proposals');
  assert.deepEqual([custom.code, custom.codespace, custom.log, custom.height], [6, 'sdk', 'unknown query path: unknown request', 0n]);

  // REST: the gateway route, grpc-gateway JSON; a refusal as the gateway renders a gRPC status.
  const rest = await node.http(
    'api',
    `/cosmos/base/tendermint/v1beta1/abci_query?path=${encodeURIComponent('/store/upgrade/key')}&data=${encodeURIComponent(base64(entry.key))}&height=${height}`,
  );
  assert.equal(rest.status, 200);
  assert.deepEqual(rest.body, {
    code: 0,
    log: '',
    info: '',
    index: '0',
    key: base64(entry.key),
    value: base64(entry.value),
    proof_ops: null,
    height: String(height),
    codespace: '',
  });
  const refused = await node.http('api', '/cosmos/base/tendermint/v1beta1/abci_query?path=/cosmos.upgrade.v1beta1.Query/CurrentPlan');
  assert.deepEqual(
    [refused.status, refused.body],
    [400, { code: 3, message: 'unsupported ABCI query path: /cosmos.upgrade.v1beta1.Query/CurrentPlan', details: [] }],
  );
  assert.equal((await node.stop()).code, 0);
});
