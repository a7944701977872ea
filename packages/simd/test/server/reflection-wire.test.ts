/**
 * The node's own answers against the descriptors reflection serves: each answer's wire fields, down
 * through nested messages and the messages carried in an Any, are read with protobufjs's Reader and
 * looked up in the types built from the reflected files alone. A field the node writes that the
 * descriptor lacks (or describes with another wire type) fails here — the gov v1 Proposal and Params
 * carry SDK v0.50's fields, which cosmjs-types 0.9 does not know.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { credentials } from '@grpc/grpc-js';
import { ABCIQueryRequest, GetBlockByHeightRequest, GetValidatorSetByHeightRequest } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import * as govV1 from 'cosmjs-types/cosmos/gov/v1/query.js';
import * as govV1beta1 from 'cosmjs-types/cosmos/gov/v1beta1/query.js';
import { QueryModuleVersionsRequest } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';
import { GrpcReflection } from 'grpc-js-reflection-client';
import protobuf from 'protobufjs';

import { grpcRpc } from '../support/grpc-client.js';
import { proposeUpgrade, simFixture, startNode, waitForProposal } from '../support/node-harness.js';
import { reflectedFiles, rootOfFiles } from '../support/reflected-files.js';

/** The wire type each described field must arrive with (packed repeated scalars come length-delimited). */
function wireTypesOf(field: protobuf.Field): number[] {
  if (field.resolvedType instanceof protobuf.Type) return [2];
  const fixed64 = ['double', 'fixed64', 'sfixed64'];
  const fixed32 = ['float', 'fixed32', 'sfixed32'];
  const scalar = fixed64.includes(field.type) ? 1 : fixed32.includes(field.type) ? 5 : ['string', 'bytes'].includes(field.type) ? 2 : 0;
  return field.repeated && scalar !== 2 ? [scalar, 2] : [scalar];
}

/** Asks reflection for the type an Any carries, as grpcurl does (by symbol). */
type Carried = (name: string) => Promise<protobuf.Type | undefined>;

/** Every wire field of `bytes` the type does not describe as it arrives. */
async function undescribed(carried: Carried, type: protobuf.Type, bytes: Uint8Array, found: string[] = []): Promise<string[]> {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const [number, wireType] = [tag >>> 3, tag & 7];
    const field = type.fieldsById[number];
    if (field === undefined) {
      found.push(`${type.fullName.slice(1)} field ${number} (wire type ${wireType})`);
      reader.skipType(wireType);
      continue;
    }
    field.resolve();
    if (!wireTypesOf(field).includes(wireType)) found.push(`${type.fullName.slice(1)}.${field.name} as wire type ${wireType}`);
    if (wireType === 2 && field.resolvedType instanceof protobuf.Type) {
      const inner = reader.bytes();
      await undescribed(carried, field.resolvedType, inner, found);
      if (field.resolvedType.fullName === '.google.protobuf.Any') {
        const any = field.resolvedType.decode(inner) as unknown as { type_url: string; value: Uint8Array };
        const inAny = await carried(any.type_url.replace(/^.*\//, ''));
        if (inAny !== undefined) await undescribed(carried, inAny, any.value, found);
        else found.push(`${any.type_url}: not described`);
      }
    } else {
      reader.skipType(wireType);
    }
  }
  return found;
}

test('every field of the node answers is described by the reflected descriptors (gov v1 with SDK v0.50 fields)', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(2);
  // A proposal that fails on execution: the v1 Proposal then carries failed_reason.
  const failed = await proposeUpgrade(bin, home, { name: '', height: (await node.height()) + 500, extra: ['--no-validate'] });
  const done = await waitForProposal(bin, home, failed.id, /FAILED/);
  assert.equal(done.failed_reason, 'name cannot be empty');

  const reflection = new GrpcReflection(node.addresses.grpc, credentials.createInsecure(), {}, 'v1');
  const files = new Map<string, Uint8Array>();
  for (const service of await reflection.listServices()) await reflectedFiles(reflection, service, files);
  let root = rootOfFiles(files);
  const carried: Carried = async (name) => {
    if (!(root.lookup(name) instanceof protobuf.Type)) {
      try {
        await reflectedFiles(reflection, name, files);
      } catch {
        return undefined;
      }
      root = rootOfFiles(files);
    }
    const found = root.lookup(name);
    return found instanceof protobuf.Type ? found : undefined;
  };
  const grpc = grpcRpc(node.addresses.grpc);
  t.after(() => grpc.client.close());

  const id = BigInt(failed.id);
  const calls: Array<[string, Uint8Array]> = [
    ['/cosmos.gov.v1.Query/Constitution', new Uint8Array()],
    ['/cosmos.gov.v1.Query/Proposal', govV1.QueryProposalRequest.encode({ proposalId: id }).finish()],
    ['/cosmos.gov.v1.Query/Proposals', govV1.QueryProposalsRequest.encode(govV1.QueryProposalsRequest.fromPartial({})).finish()],
    ...['voting', 'deposit', 'tallying'].map((paramsType): [string, Uint8Array] => [
      '/cosmos.gov.v1.Query/Params',
      govV1.QueryParamsRequest.encode({ paramsType }).finish(),
    ]),
    ['/cosmos.gov.v1.Query/TallyResult', govV1.QueryTallyResultRequest.encode({ proposalId: id }).finish()],
    ['/cosmos.gov.v1.Query/Deposits', govV1.QueryDepositsRequest.encode(govV1.QueryDepositsRequest.fromPartial({ proposalId: id })).finish()],
    ['/cosmos.gov.v1.Query/Votes', govV1.QueryVotesRequest.encode(govV1.QueryVotesRequest.fromPartial({ proposalId: id })).finish()],
    ['/cosmos.gov.v1beta1.Query/Proposal', govV1beta1.QueryProposalRequest.encode({ proposalId: id }).finish()],
    ...['voting', 'deposit', 'tallying'].map((paramsType): [string, Uint8Array] => [
      '/cosmos.gov.v1beta1.Query/Params',
      govV1beta1.QueryParamsRequest.encode({ paramsType }).finish(),
    ]),
    ['/cosmos.upgrade.v1beta1.Query/CurrentPlan', new Uint8Array()],
    ['/cosmos.upgrade.v1beta1.Query/ModuleVersions', QueryModuleVersionsRequest.encode({ moduleName: '' }).finish()],
    ['/cosmos.upgrade.v1beta1.Query/Authority', new Uint8Array()],
    ['/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo', new Uint8Array()],
    ['/cosmos.base.tendermint.v1beta1.Service/GetSyncing', new Uint8Array()],
    ['/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock', new Uint8Array()],
    ['/cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight', GetBlockByHeightRequest.encode({ height: 2n }).finish()],
    ['/cosmos.base.tendermint.v1beta1.Service/GetLatestValidatorSet', new Uint8Array()],
    ['/cosmos.base.tendermint.v1beta1.Service/GetValidatorSetByHeight', GetValidatorSetByHeightRequest.encode({ height: 2n }).finish()],
    [
      '/cosmos.base.tendermint.v1beta1.Service/ABCIQuery',
      ABCIQueryRequest.encode({ path: 'app/version', data: new Uint8Array(), height: 2n, prove: false }).finish(),
    ],
  ];
  const gaps: string[] = [];
  const seen = new Set<string>();
  for (const [path, request] of calls) {
    const [, service, method] = path.split('/') as [string, string, string];
    const described = root.lookupService(service).methods[method];
    assert.ok(described, `${path} described`);
    const answer = await grpc.call(path, request);
    const type = root.lookupType(described.responseType.replace(/^\./, ''));
    for (const gap of await undescribed(carried, type, answer)) gaps.push(`${path}: ${gap}`);
    seen.add(path);
  }
  assert.deepEqual(gaps, []);

  // The v0.50 fields arrived and decode by their names with the reflected types.
  const proposal = root.lookupType('cosmos.gov.v1.QueryProposalResponse').decode(await grpc.call(calls[1]![0], calls[1]![1])) as any;
  assert.deepEqual([proposal.proposal.failed_reason, proposal.proposal.expedited], ['name cannot be empty', false]);
  const params = root
    .lookupType('cosmos.gov.v1.QueryParamsResponse')
    .decode(await grpc.call('/cosmos.gov.v1.Query/Params', govV1.QueryParamsRequest.encode({ paramsType: 'tallying' }).finish())) as any;
  assert.deepEqual(
    [
      params.params.proposal_cancel_ratio,
      params.params.expedited_voting_period.seconds.toString(),
      params.params.expedited_threshold,
      params.params.expedited_min_deposit[0].amount,
      params.params.min_deposit_ratio,
    ],
    ['0.500000000000000000', '86400', '0.667000000000000000', '50000000', '0.010000000000000000'],
  );

  // The v0.50 fields as described: numbers, names, types and options (read with the served descriptor.proto).
  const fileType = root.lookupType('google.protobuf.FileDescriptorProto');
  const gov = fileType.toObject(fileType.decode(files.get('cosmos/gov/v1/gov.proto') as Uint8Array)) as any;
  const fieldsOf = (message: string, from: number) =>
    gov.message_type
      .find((m: { name: string }) => m.name === message)
      .field.filter((f: { number: number }) => f.number >= from)
      .map((f: any) => [f.number, f.name, f.type, f.label, f.type_name ?? '', f.options ?? {}]);
  const dec = { '.cosmos_proto.scalar': 'cosmos.Dec' };
  const address = { '.cosmos_proto.scalar': 'cosmos.AddressString' };
  assert.deepEqual(fieldsOf('Proposal', 13), [
    [13, 'proposer', 9, 1, '', address],
    [14, 'expedited', 8, 1, '', {}],
    [15, 'failed_reason', 9, 1, '', {}],
  ]);
  assert.deepEqual(fieldsOf('Params', 8), [
    [8, 'proposal_cancel_ratio', 9, 1, '', dec],
    [9, 'proposal_cancel_dest', 9, 1, '', address],
    [10, 'expedited_voting_period', 11, 1, '.google.protobuf.Duration', { '.gogoproto.stdduration': true }],
    [11, 'expedited_threshold', 9, 1, '', dec],
    [12, 'expedited_min_deposit', 11, 3, '.cosmos.base.v1beta1.Coin', { '.gogoproto.nullable': false, '.amino.dont_omitempty': true }],
    [13, 'burn_vote_quorum', 8, 1, '', {}],
    [14, 'burn_proposal_deposit_prevote', 8, 1, '', {}],
    [15, 'burn_vote_veto', 8, 1, '', {}],
    [16, 'min_deposit_ratio', 9, 1, '', dec],
  ]);
  assert.equal((await node.stop()).code, 0);
});
