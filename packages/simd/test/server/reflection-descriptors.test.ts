/**
 * The descriptors reflection serves: one for every service the node serves (a served service without
 * one fails here), and each message reachable from them has exactly the fields of cosmjs-types 0.9 —
 * the SDK 0.47 messages — plus those SDK v0.50 added to gov v1, which the node encodes too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';

import { defaultGenesis } from '../../src/chain/genesis.js';
import { createQueryService } from '../../src/server/query-service.js';
import { describeServices, reflectionServices } from '../../src/server/reflection/index.js';

const unread = () => {
  throw new Error('not read');
};
const served = Object.keys(
  createQueryService({
    reader: unread,
    node: unread,
    heights: unread,
    readerAt: unread,
    identity: { chainId: 'sim-1', name: 'simd', moniker: 'simd', nodeId: '', version: 'genesis', rpcAddress: () => '', appVersionAtStart: 0 },
    genesis: defaultGenesis(),
  }).services,
);

/** SDK v0.50's fields that cosmjs-types 0.9 (SDK 0.47) lacks, by message (camelCase). */
const sdk050Fields: Readonly<Record<string, readonly string[]>> = {
  'cosmos.gov.v1.Proposal': ['expedited', 'failedReason'],
  'cosmos.gov.v1.Params': [
    'proposalCancelRatio',
    'proposalCancelDest',
    'expeditedVotingPeriod',
    'expeditedThreshold',
    'expeditedMinDeposit',
    'minDepositRatio',
  ],
  'cosmos.gov.v1.MsgSubmitProposal': ['expedited'],
};
/** SDK v0.50's messages that cosmjs-types 0.9 lacks, with their fields. */
const sdk050Messages: Readonly<Record<string, readonly string[]>> = {
  'cosmos.gov.v1.QueryConstitutionRequest': [],
  'cosmos.gov.v1.QueryConstitutionResponse': ['constitution'],
};

function rootOf(files: Map<string, Uint8Array>): protobuf.Root {
  const set = descriptor.FileDescriptorSet.fromObject({ file: [...files.values()].map((b) => descriptor.FileDescriptorProto.decode(b)) });
  return (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor(set);
}

test('every served gRPC service has a descriptor; an unknown one is refused', () => {
  const files = describeServices([...served, ...reflectionServices]);
  const root = rootOf(files);
  for (const service of [...served, ...reflectionServices]) assert.ok(root.lookupService(service), service);
  // Every declared dependency is among the files served, so a client can link each file.
  for (const bytes of files.values()) {
    const file = descriptor.FileDescriptorProto.decode(bytes) as unknown as { name: string; dependency: string[] };
    for (const dependency of file.dependency) assert.ok(files.has(dependency), `${file.name} imports ${dependency}`);
  }
  assert.throws(() => describeServices(['cosmos.nosuch.v1.Query']), { code: 'SIM_NO_DESCRIPTOR' });
});

test('each described message has the fields cosmjs-types 0.9 (SDK 0.47) gives it, and v0.50 gov v1 its own', async () => {
  const files = describeServices(['cosmos.upgrade.v1beta1.Query', 'cosmos.base.tendermint.v1beta1.Service', 'cosmos.gov.v1.Query', 'cosmos.gov.v1beta1.Query']);
  const root = rootOf(files);
  const fileOf = new Map<string, string>();
  for (const bytes of files.values()) {
    const file = descriptor.FileDescriptorProto.decode(bytes) as unknown as { name: string; package: string; messageType: Array<{ name: string }> };
    for (const message of file.messageType) fileOf.set(`${file.package}.${message.name}`, file.name);
  }
  const seen = new Set<string>();
  const differences: string[] = [];
  const check = async (type: protobuf.Type): Promise<void> => {
    const name = type.fullName.slice(1);
    if (seen.has(name) || name.startsWith('google.protobuf.')) return;
    seen.add(name);
    const top = [...fileOf.keys()].find((k) => name === k || name.startsWith(`${k}.`));
    assert.ok(top !== undefined, `file of ${name}`);
    const file = fileOf.get(top) as string;
    const pkg = top.slice(0, top.lastIndexOf('.'));
    const module = (await import(`cosmjs-types/${file.replace(/\.proto$/, '.js')}`)) as Record<string, { fromPartial(o: object): object }>;
    const generated = module[name.slice(pkg.length + 1).replace(/\./g, '_')];
    const camel = (n: string) => n.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    const added050 = sdk050Messages[name];
    if (added050 !== undefined) {
      const ours = type.fieldsArray.map((f) => camel(f.name));
      if (generated !== undefined || JSON.stringify(ours) !== JSON.stringify(added050)) differences.push(`${name}: ${ours.join(',')}, not v0.50's`);
    } else if (generated === undefined) {
      differences.push(`${name}: not in cosmjs-types`);
    } else {
      const added = sdk050Fields[name] ?? [];
      const all = type.fieldsArray.map((f) => camel(f.name));
      for (const field of added) if (!all.includes(field)) differences.push(`${name}: no v0.50 field ${field}`);
      const ours = all.filter((f) => !added.includes(f)).sort();
      const theirs = Object.keys(generated.fromPartial({})).sort();
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) differences.push(`${name}: ${ours.join(',')} ≠ ${theirs.join(',')}`);
    }
    for (const field of type.fieldsArray) {
      field.resolve();
      if (field.resolvedType instanceof protobuf.Type) await check(field.resolvedType);
    }
  };
  // Every Cosmos and CometBFT message described: those the services use and those carried in an Any.
  for (const top of fileOf.keys()) {
    if (/^(cosmos|tendermint)\./.test(top)) await check(root.lookupType(top));
  }
  assert.deepEqual(differences, []);
  assert.ok(seen.has('cosmos.base.tendermint.v1beta1.Header') && seen.has('tendermint.p2p.DefaultNodeInfo'));
});
