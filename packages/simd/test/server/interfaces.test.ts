/**
 * The three interfaces agree: REST, gRPC (answers decoded by cosmjs-types' QueryClientImpl over a
 * grpc-js transport) and the CLI; plus the CometBFT RPC and the tendermint gRPC service.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Client, credentials, type ServiceError, status } from '@grpc/grpc-js';
import { ServiceClientImpl } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import { QueryClientImpl } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { cli, cliJson, proposeUpgrade, simFixture, startNode, waitForProposal } from '../support/node-harness.js';

function grpcRpc(address: string) {
  const client = new Client(address, credentials.createInsecure());
  return {
    client,
    rpc: {
      request: (service: string, method: string, data: Uint8Array) =>
        new Promise<Uint8Array>((resolve, reject) => {
          client.makeUnaryRequest(
            `/${service}/${method}`,
            (x: Uint8Array) => Buffer.from(x),
            (b: Buffer) => new Uint8Array(b),
            data,
            (error, value) => (error ? reject(error) : resolve(value as Uint8Array)),
          );
        }),
    },
  };
}

test('REST, gRPC and CLI answer the same; RPC status and blocks', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(2);
  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const upgrade = new QueryClientImpl(rpc);

  // No plan: null / undefined / error.
  assert.deepEqual((await node.http('api', '/cosmos/upgrade/v1beta1/current_plan')).body, { plan: null });
  assert.equal((await upgrade.CurrentPlan()).plan, undefined);

  const info = fx.built.versions.v2?.info as string;
  const height = (await node.height()) + 1000;
  const { id } = await proposeUpgrade(bin, home, { name: 'v2', height, info });
  await waitForProposal(bin, home, id, /PASSED/);

  const rest = (await node.http('api', '/cosmos/upgrade/v1beta1/current_plan')).body;
  const grpc = await upgrade.CurrentPlan();
  const cliPlan = await cliJson(bin, ['query', 'upgrade', 'plan', '--home', home]);
  const expected = { name: 'v2', time: '0001-01-01T00:00:00Z', height: String(height), info, upgraded_client_state: null };
  assert.deepEqual(rest, { plan: expected });
  assert.deepEqual(cliPlan, expected);
  assert.equal(grpc.plan?.name, 'v2');
  assert.equal(grpc.plan?.height, BigInt(height));
  assert.equal(grpc.plan?.info, info);
  assert.equal(grpc.plan?.time?.seconds, -62135596800n);

  // Module versions, all and filtered.
  const restVersions = (await node.http('api', '/cosmos/upgrade/v1beta1/module_versions')).body;
  const cliVersions = await cliJson(bin, ['query', 'upgrade', 'module_versions', '--home', home]);
  const grpcVersions = await upgrade.ModuleVersions({ moduleName: '' });
  assert.deepEqual(restVersions, cliVersions);
  assert.deepEqual(
    grpcVersions.moduleVersions.map((m) => ({ name: m.name, version: m.version.toString() })),
    (restVersions as { module_versions: unknown[] }).module_versions,
  );
  assert.deepEqual(
    (restVersions as { module_versions: unknown[] }).module_versions.find((m) => (m as { name: string }).name === 'upgrade'),
    { name: 'upgrade', version: '2' },
  );
  assert.deepEqual((await node.http('api', '/cosmos/upgrade/v1beta1/module_versions?module_name=gov')).body, {
    module_versions: [{ name: 'gov', version: '5' }],
  });
  assert.deepEqual((await upgrade.ModuleVersions({ moduleName: 'gov' })).moduleVersions, [{ name: 'gov', version: 5n }]);
  assert.deepEqual(await cliJson(bin, ['query', 'upgrade', 'module_versions', 'gov', '--home', home]), { module_versions: [{ name: 'gov', version: '5' }] });

  // Unknown module: the SDK's wrapped ErrNoModuleVersionFound (codes.Unknown) on every interface.
  const message = 'codespace upgrade code 2: module version not found: x/upgrade: QueryModuleVersions module nosuch not found';
  const restMissing = await node.http('api', '/cosmos/upgrade/v1beta1/module_versions?module_name=nosuch');
  assert.equal(restMissing.status, 500);
  assert.deepEqual(restMissing.body, { code: 2, message, details: [] });
  const grpcMissing = (await upgrade.ModuleVersions({ moduleName: 'nosuch' }).catch((e: unknown) => e)) as ServiceError;
  assert.equal(grpcMissing.code, status.UNKNOWN);
  assert.equal(grpcMissing.details, message);
  const cliMissing = await cli(bin, ['query', 'upgrade', 'module_versions', 'nosuch', '--home', home]);
  assert.equal(cliMissing.code, 1);
  assert.match(cliMissing.stderr, /x\/upgrade: QueryModuleVersions module nosuch not found: module version not found: unknown request/);

  // Applied plan of a name never applied: height 0.
  assert.deepEqual((await node.http('api', '/cosmos/upgrade/v1beta1/applied_plan/v2')).body, { height: '0' });
  assert.equal((await upgrade.AppliedPlan({ name: 'v2' })).height, 0n);

  // Authority.
  const authority = 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn';
  assert.deepEqual((await node.http('api', '/cosmos/upgrade/v1beta1/authority')).body, { address: authority });
  assert.equal((await upgrade.Authority()).address, authority);
  assert.deepEqual(await cliJson(bin, ['query', 'upgrade', 'authority', '--home', home]), { address: authority });

  // CometBFT RPC and the tendermint gRPC service agree on the chain.
  const status1 = (await node.http('rpc', '/status')).body.result;
  const latest = await new ServiceClientImpl(rpc).GetLatestBlock();
  assert.equal(latest.sdkBlock?.header?.chainId, 'sim-1');
  assert.ok((latest.sdkBlock?.header?.height ?? 0n) >= BigInt(status1.sync_info.latest_block_height));
  assert.equal(status1.node_info.network, 'sim-1');
  const block1 = (await node.http('rpc', '/block?height=1')).body.result;
  const byHeight = await new ServiceClientImpl(rpc).GetBlockByHeight({ height: 1n });
  assert.equal(
    Buffer.from(byHeight.blockId?.hash ?? [])
      .toString('hex')
      .toUpperCase(),
    block1.block_id.hash,
  );
  const chain = (await node.http('rpc', '/blockchain?minHeight=1&maxHeight=3')).body.result;
  assert.deepEqual(
    chain.block_metas.map((m: { header: { height: string } }) => m.header.height),
    ['3', '2', '1'],
  );
  const tooHigh = await node.http('rpc', '/block?height=999999');
  assert.match(tooHigh.body.error.data, /must be less than or equal to the current blockchain height/);
  // `status` prints the SDK's Amino JSON re-encoding of the RPC status on one line.
  const cliStatus = await cli(bin, ['status', '--home', home]);
  assert.equal(cliStatus.code, 0, cliStatus.stderr);
  assert.match(cliStatus.stdout, /^\{"NodeInfo":\{[^\n]*\}$/);
  const printed = JSON.parse(cliStatus.stdout);
  const rpcStatus = (await node.http('rpc', '/status')).body.result;
  assert.deepEqual(Object.keys(printed), ['NodeInfo', 'SyncInfo', 'ValidatorInfo']);
  assert.deepEqual(printed.NodeInfo, rpcStatus.node_info);
  assert.equal(printed.SyncInfo.earliest_block_height, '1');
  assert.match(printed.SyncInfo.latest_block_height, /^\d+$/);
  assert.deepEqual(printed.ValidatorInfo, {
    Address: Buffer.from(rpcStatus.validator_info.address, 'hex').toString('base64'),
    PubKey: { type: 'tendermint/PubKeyEd25519', value: rpcStatus.validator_info.pub_key.value },
    VotingPower: rpcStatus.validator_info.voting_power,
  });
  assert.equal(typeof printed.ValidatorInfo.VotingPower, 'string');
  assert.equal((await node.stop()).code, 0);
});
