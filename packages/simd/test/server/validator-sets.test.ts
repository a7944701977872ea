/**
 * GetLatestValidatorSet and GetValidatorSetByHeight as the SDK's cmtservice answers them, read with
 * cosmjs-types' ServiceClientImpl on grpc-js and over REST: the RPC's `validators` at the same height
 * (consensus address in bech32, the ed25519 key in an Any), the SDK's pagination and its errors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { status } from '@grpc/grpc-js';
import { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination.js';
import { ServiceClientImpl } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys.js';

import { grpcError, grpcRpc } from '../support/grpc-client.js';
import { simFixture, startNode } from '../support/node-harness.js';

test('validator sets over gRPC and REST: the RPC validators, the SDK pagination and errors', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(3);
  const { client, rpc } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const service = new ServiceClientImpl(rpc);

  const byHeight = await service.GetValidatorSetByHeight({ height: 2n, pagination: undefined });
  const cometSet = (await node.http('rpc', '/validators?height=2')).body.result;
  const comet = cometSet.validators[0];
  assert.equal(byHeight.blockHeight, 2n);
  assert.equal(String(byHeight.blockHeight), cometSet.block_height);
  assert.equal(byHeight.validators.length, 1);
  const [validator] = byHeight.validators;
  // The consensus address: the proposer's, as the SDK's block gives it in bech32 and CometBFT's in hex.
  const block = await service.GetBlockByHeight({ height: 2n });
  assert.equal(
    Buffer.from(block.block?.header?.proposerAddress ?? [])
      .toString('hex')
      .toUpperCase(),
    comet.address,
  );
  assert.match(validator?.address ?? '', /^cosmosvalcons1/);
  assert.equal(validator?.address, block.sdkBlock?.header?.proposerAddress);
  assert.equal(validator?.pubKey?.typeUrl, '/cosmos.crypto.ed25519.PubKey');
  assert.equal(Buffer.from(PubKey.decode(validator?.pubKey?.value ?? new Uint8Array()).key).toString('base64'), comet.pub_key.value);
  assert.deepEqual([String(validator?.votingPower), String(validator?.proposerPriority)], [comet.voting_power, comet.proposer_priority]);
  assert.deepEqual([byHeight.pagination?.total, byHeight.pagination?.nextKey.length], [1n, 0]);

  // The latest set is the next block's, as the RPC's validators without a height.
  const latest = await service.GetLatestValidatorSet({ pagination: undefined });
  const cometLatest = Number((await node.http('rpc', '/validators')).body.result.block_height);
  assert.ok(latest.blockHeight >= 4n && Number(latest.blockHeight) <= cometLatest, `${latest.blockHeight} ≤ ${cometLatest}`);
  assert.deepEqual(latest.validators, byHeight.validators);

  // Pagination: offset/limit become CometBFT's page; a page past the end is CometBFT's error (gRPC Unknown).
  const page = (offset: bigint, limit: bigint) => PageRequest.fromPartial({ offset, limit });
  assert.equal((await service.GetLatestValidatorSet({ pagination: page(0n, 1n) })).validators.length, 1);
  const beyond = await grpcError(service.GetLatestValidatorSet({ pagination: page(1n, 1n) }));
  assert.deepEqual([beyond.code, beyond.details], [status.UNKNOWN, 'page should be within [1, 1] range, given 2']);
  const cometBeyond = (await node.http('rpc', '/validators?page=2&per_page=1')).body.error;
  assert.equal(cometBeyond.data, beyond.details);
  const negative = await grpcError(service.GetLatestValidatorSet({ pagination: page(2n ** 64n - 1n, 0n) }));
  assert.deepEqual([negative.code, negative.details], [status.INVALID_ARGUMENT, 'offset must greater than 0']);

  const future = await grpcError(service.GetValidatorSetByHeight({ height: 1_000_000n, pagination: undefined }));
  assert.deepEqual([future.code, future.details], [status.INVALID_ARGUMENT, 'requested block height is bigger then the chain length']);
  const zero = await grpcError(service.GetValidatorSetByHeight({ height: 0n, pagination: undefined }));
  assert.deepEqual([zero.code, zero.details], [status.UNKNOWN, 'height must be greater than 0, but got 0']);

  // REST: grpc-gateway JSON, the Any with its @type.
  const rest = await node.http('api', '/cosmos/base/tendermint/v1beta1/validatorsets/2');
  assert.equal(rest.status, 200);
  assert.deepEqual(rest.body, {
    block_height: '2',
    validators: [
      {
        address: validator?.address,
        pub_key: { '@type': '/cosmos.crypto.ed25519.PubKey', key: comet.pub_key.value },
        voting_power: comet.voting_power,
        proposer_priority: comet.proposer_priority,
      },
    ],
    pagination: { next_key: null, total: '1' },
  });
  const restLatest = await node.http('api', '/cosmos/base/tendermint/v1beta1/validatorsets/latest?pagination.limit=1');
  assert.deepEqual([restLatest.status, restLatest.body.validators, restLatest.body.pagination], [200, rest.body.validators, { next_key: null, total: '1' }]);
  const restBeyond = await node.http('api', '/cosmos/base/tendermint/v1beta1/validatorsets/latest?pagination.offset=5&pagination.limit=1');
  assert.deepEqual([restBeyond.status, restBeyond.body], [500, { code: 2, message: 'page should be within [1, 1] range, given 6', details: [] }]);
  const restFuture = await node.http('api', '/cosmos/base/tendermint/v1beta1/validatorsets/1000000');
  assert.deepEqual([restFuture.status, restFuture.body.code], [400, 3]);
  assert.equal((await node.stop()).code, 0);
});
