/**
 * `cosmos.base.tendermint.v1beta1.Service` as Cosmos clients read it: over gRPC with cosmjs-types'
 * ServiceClientImpl on a grpc-js transport (GetNodeInfo, GetLatestBlock, GetBlockByHeight, GetSyncing,
 * the SDK's error above the latest height) and over REST in grpc-gateway JSON; both agree with the
 * CometBFT RPC.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { Client, credentials, type ServiceError, status } from '@grpc/grpc-js';
import { ServiceClientImpl } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/types.js';

import { simFixture, startNode } from '../support/node-harness.js';

function grpcRpc(address: string) {
  const client = new Client(address, credentials.createInsecure());
  const request = (service: string, method: string, data: Uint8Array) =>
    new Promise<Uint8Array>((resolve, reject) => {
      client.makeUnaryRequest(
        `/${service}/${method}`,
        (x: Uint8Array) => Buffer.from(x),
        (b: Buffer) => new Uint8Array(b),
        data,
        (error, value) => (error ? reject(error) : resolve(value as Uint8Array)),
      );
    });
  return { client, rpc: { request } };
}

const hex = (bytes: Uint8Array | undefined) =>
  Buffer.from(bytes ?? [])
    .toString('hex')
    .toUpperCase();

test('GetNodeInfo, GetLatestBlock, GetBlockByHeight and GetSyncing over gRPC and REST', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('v2'), home);
  await node.waitForHeight(3);
  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const service = new ServiceClientImpl(rpc);
  const cometStatus = (await node.http('rpc', '/status')).body.result;

  // GetNodeInfo: CometBFT's node info, and the application's version info.
  const info = await service.GetNodeInfo();
  const nodeInfo = info.defaultNodeInfo;
  assert.equal(nodeInfo?.network, 'sim-1');
  assert.equal(nodeInfo?.defaultNodeId, cometStatus.node_info.id);
  assert.equal(nodeInfo?.moniker, cometStatus.node_info.moniker);
  // The moniker given to `init` (config.toml) and the id of the home's node key, as CometBFT derives it.
  assert.equal(nodeInfo?.moniker, 'test');
  assert.match(await readFile(path.join(home, 'config', 'config.toml'), 'utf8'), /^moniker = "test"$/m);
  const nodeIdOf = async (h: string) => {
    const key = JSON.parse(await readFile(path.join(h, 'config', 'node_key.json'), 'utf8')).priv_key;
    assert.equal(key.type, 'tendermint/PrivKeyEd25519');
    return createHash('sha256').update(Buffer.from(key.value, 'base64').subarray(32)).digest('hex').slice(0, 40);
  };
  assert.equal(nodeInfo?.defaultNodeId, await nodeIdOf(home));
  const other = await fx.initHome();
  assert.notEqual(await nodeIdOf(other), nodeInfo?.defaultNodeId);
  // The validator's consensus key is the home's priv_validator_key.json, as in CometBFT.
  const validatorKey = async (h: string) => JSON.parse(await readFile(path.join(h, 'config', 'priv_validator_key.json'), 'utf8'));
  const privValidator = await validatorKey(home);
  assert.deepEqual(cometStatus.validator_info.pub_key, privValidator.pub_key);
  assert.equal(cometStatus.validator_info.address, privValidator.address);
  assert.equal(privValidator.address, createHash('sha256').update(Buffer.from(privValidator.pub_key.value, 'base64')).digest('hex').slice(0, 40).toUpperCase());
  assert.notEqual((await validatorKey(other)).pub_key.value, privValidator.pub_key.value);
  assert.equal(nodeInfo?.version, cometStatus.node_info.version);
  assert.equal(nodeInfo?.listenAddr, cometStatus.node_info.listen_addr);
  assert.equal(hex(nodeInfo?.channels), cometStatus.node_info.channels);
  assert.deepEqual(nodeInfo?.protocolVersion, { p2p: 8n, block: 11n, app: 0n });
  assert.deepEqual(nodeInfo?.other, { txIndex: 'on', rpcAddress: node.addresses.rpc });
  const app = info.applicationVersion;
  assert.equal(app?.version, 'v2');
  assert.equal(app?.name, 'sim');
  assert.equal(app?.appName, path.basename(fx.bin('v2')));
  assert.match(app?.goVersion ?? '', /^node v\d+/);
  assert.match(app?.cosmosSdkVersion ?? '', /^v0\.\d+\.\d+$/);

  // GetLatestBlock and GetBlockByHeight: the CometBFT block (`block`) and the SDK's (`sdk_block`).
  const latest = await service.GetLatestBlock();
  const height = latest.block?.header?.height ?? 0n;
  assert.ok(height >= 3n);
  assert.equal(latest.sdkBlock?.header?.height, height);
  const byHeight = await service.GetBlockByHeight({ height: 2n });
  const comet = (await node.http('rpc', '/block?height=2')).body.result;
  assert.equal(hex(byHeight.blockId?.hash), comet.block_id.hash);
  for (const block of [byHeight.block, byHeight.sdkBlock]) {
    const header = block?.header;
    assert.equal(header?.chainId, 'sim-1');
    assert.equal(header?.height, 2n);
    assert.equal(hex(header?.appHash), comet.block.header.app_hash);
    assert.equal(hex(header?.lastBlockId?.hash), comet.block.header.last_block_id.hash);
    assert.equal(hex(header?.dataHash), comet.block.header.data_hash);
    assert.equal(header?.time?.seconds, BigInt(Math.floor(Date.parse(comet.block.header.time) / 1000)));
  }
  assert.equal(hex(byHeight.block?.header?.proposerAddress), comet.block.header.proposer_address);
  assert.equal(comet.block.header.proposer_address, privValidator.address);
  // The last commit carries the validator's precommit, as in RPC `/block`.
  const rpcSig = comet.block.last_commit.signatures[0];
  assert.equal(comet.block.last_commit.signatures.length, 1);
  for (const block of [byHeight.block, byHeight.sdkBlock]) {
    const commit = block?.lastCommit;
    assert.equal(commit?.height, 1n);
    assert.equal(hex(commit?.blockId?.hash), comet.block.last_commit.block_id.hash);
    assert.equal(commit?.signatures.length, 1);
    const sig = commit?.signatures[0];
    assert.equal(sig?.blockIdFlag, BlockIDFlag.BLOCK_ID_FLAG_COMMIT);
    assert.equal(hex(sig?.validatorAddress), rpcSig.validator_address);
    assert.equal(Buffer.from(sig?.signature ?? []).toString('base64'), rpcSig.signature);
    assert.equal(sig?.timestamp?.seconds, BigInt(Math.floor(Date.parse(rpcSig.timestamp) / 1000)));
    assert.equal(sig?.timestamp?.nanos, Number(rpcSig.timestamp.match(/\.(\d+)Z$/)?.[1]?.padEnd(9, '0') ?? 0));
  }
  const first = await service.GetBlockByHeight({ height: 1n });
  assert.deepEqual(first.block?.lastCommit?.signatures, []);
  assert.match(byHeight.sdkBlock?.header?.proposerAddress ?? '', /^cosmosvalcons1[02-9ac-hj-np-z]{38}$/);
  assert.equal((await service.GetSyncing()).syncing, false);

  // Above the latest height: the SDK's InvalidArgument; at 0, CometBFT's error passed on as Unknown.
  const above = (await service.GetBlockByHeight({ height: 1_000_000n }).catch((e: unknown) => e)) as ServiceError;
  assert.equal(above.code, status.INVALID_ARGUMENT);
  assert.equal(above.details, 'requested block height is bigger then the chain length');
  const zero = (await service.GetBlockByHeight({ height: 0n }).catch((e: unknown) => e)) as ServiceError;
  assert.equal(zero.code, status.UNKNOWN);
  assert.equal(zero.details, 'height must be greater than 0, but got 0');

  // REST, in the gateway's JSON: proto names, int64 as strings, bytes in base64, every field present.
  const restInfo = await node.http('api', '/cosmos/base/tendermint/v1beta1/node_info');
  assert.equal(restInfo.status, 200);
  assert.deepEqual(Object.keys(restInfo.body), ['default_node_info', 'application_version']);
  assert.deepEqual(restInfo.body.default_node_info, {
    protocol_version: { p2p: '8', block: '11', app: '0' },
    default_node_id: cometStatus.node_info.id,
    listen_addr: cometStatus.node_info.listen_addr,
    network: 'sim-1',
    version: cometStatus.node_info.version,
    channels: Buffer.from(cometStatus.node_info.channels, 'hex').toString('base64'),
    moniker: cometStatus.node_info.moniker,
    other: { tx_index: 'on', rpc_address: node.addresses.rpc },
  });
  assert.deepEqual(restInfo.body.application_version, {
    name: 'sim',
    app_name: app?.appName,
    version: 'v2',
    git_commit: '',
    build_tags: '',
    go_version: app?.goVersion,
    build_deps: [],
    cosmos_sdk_version: app?.cosmosSdkVersion,
  });
  assert.deepEqual((await node.http('api', '/cosmos/base/tendermint/v1beta1/syncing')).body, { syncing: false });

  const restBlock = (await node.http('api', '/cosmos/base/tendermint/v1beta1/blocks/2')).body;
  assert.deepEqual(Object.keys(restBlock), ['block_id', 'block', 'sdk_block']);
  assert.equal(Buffer.from(restBlock.block_id.hash, 'base64').toString('hex').toUpperCase(), comet.block_id.hash);
  assert.equal(restBlock.block.header.height, '2');
  // The same instant; protobuf's JSON writes 0, 3, 6 or 9 fractional digits, so ….124661000 is ….124661 there.
  const nine = (time: string) => time.replace(/\.(\d+)Z$/, (_m: string, d: string) => `.${d.padEnd(9, '0')}Z`);
  assert.equal(nine(restBlock.block.header.time), nine(comet.block.header.time));
  assert.deepEqual(restBlock.block.header.version, { block: comet.block.header.version.block, app: comet.block.header.version.app ?? '0' });
  assert.equal(Buffer.from(restBlock.block.header.proposer_address, 'base64').toString('hex').toUpperCase(), comet.block.header.proposer_address);
  assert.equal(restBlock.sdk_block.header.proposer_address, byHeight.sdkBlock?.header?.proposerAddress);
  assert.deepEqual(restBlock.block.data, { txs: [] });
  assert.deepEqual(restBlock.block.evidence, { evidence: [] });
  assert.equal(restBlock.block.last_commit.height, '1');
  for (const block of [restBlock.block, restBlock.sdk_block]) {
    const restTime: string = block.last_commit.signatures[0]?.timestamp ?? '';
    assert.equal(nine(restTime), nine(rpcSig.timestamp));
    assert.deepEqual(block.last_commit.signatures, [
      {
        block_id_flag: 'BLOCK_ID_FLAG_COMMIT',
        validator_address: Buffer.from(rpcSig.validator_address, 'hex').toString('base64'),
        timestamp: restTime,
        signature: rpcSig.signature,
      },
    ]);
  }
  const restLatest = (await node.http('api', '/cosmos/base/tendermint/v1beta1/blocks/latest')).body;
  assert.ok(BigInt(restLatest.sdk_block.header.height) >= height);
  const restAbove = await node.http('api', '/cosmos/base/tendermint/v1beta1/blocks/1000000');
  assert.equal(restAbove.status, 400);
  assert.deepEqual(restAbove.body, { code: 3, message: 'requested block height is bigger then the chain length', details: [] });
  assert.equal((await node.stop()).code, 0);
});
