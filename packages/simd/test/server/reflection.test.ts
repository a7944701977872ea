/**
 * gRPC server reflection against a running node, with grpc-js-reflection-client (v1 and v1alpha):
 * the listed services, descriptors that resolve every type and keep their options, and calls made
 * through clients built only from the reflected descriptors.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';

import { type Client, credentials, type GrpcObject, loadPackageDefinition, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer, loadSync } from '@grpc/proto-loader';
import { GrpcReflection } from 'grpc-js-reflection-client';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';

import { simFixture, startNode } from '../support/node-harness.js';
import { reflectedFiles } from '../support/reflected-files.js';

/** The reflection service's own .proto, as @grpc/reflection ships it. */
const reflectionProto = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@grpc/reflection')),
  '..',
  'proto',
  'grpc',
  'reflection',
  'v1',
  'reflection.proto',
);

/** A FileDescriptorSet of these serialized files (its field 1, repeated). */
function descriptorSet(files: Map<string, Uint8Array>): Buffer {
  const writer = protobuf.Writer.create();
  for (const bytes of files.values()) writer.uint32(10).bytes(bytes);
  return Buffer.from(writer.finish());
}

function serviceConstructor(pkg: GrpcObject, name: string): ServiceClientConstructor {
  let node: unknown = pkg;
  for (const part of name.split('.')) node = (node as GrpcObject)[part];
  return node as ServiceClientConstructor;
}

async function unary(client: Client, method: string, request: object): Promise<any> {
  return new Promise((resolve, reject) => {
    (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method]?.(request, (error: Error | null, value: unknown) =>
      error ? reject(error) : resolve(value),
    );
  });
}

test('reflection lists every served service and describes them so clients can call them, v1 and v1alpha', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(2);

  for (const version of ['v1', 'v1alpha']) {
    const reflection = new GrpcReflection(node.addresses.grpc, credentials.createInsecure(), {}, version);
    const services = await reflection.listServices();
    for (const expected of [
      'cosmos.upgrade.v1beta1.Query',
      'cosmos.base.tendermint.v1beta1.Service',
      'grpc.reflection.v1.ServerReflection',
      'grpc.reflection.v1alpha.ServerReflection',
    ]) {
      assert.ok(services.includes(expected), `${version}: ${expected} in ${services.join(', ')}`);
    }
    // Every listed service resolves, with all the files it imports.
    for (const service of services) {
      const descriptor = await reflection.getDescriptorBySymbol(service);
      assert.ok(descriptor.getProtobufJsRoot().lookupService(service), `${version}: ${service} described`);
    }

    // describe <message>: the SDK 0.47 shape, with the types it uses from other files.
    // (protobufjs, which the client builds its Root with, names fields in camelCase.)
    const latest = (await reflection.getDescriptorBySymbol('cosmos.base.tendermint.v1beta1.GetLatestBlockResponse')).getProtobufJsRoot();
    const response = latest.lookupType('cosmos.base.tendermint.v1beta1.GetLatestBlockResponse');
    assert.deepEqual(
      response.fieldsArray.map((f) => [f.name, f.id, f.resolve().resolvedType?.fullName]),
      [
        ['blockId', 1, '.tendermint.types.BlockID'],
        ['block', 2, '.tendermint.types.Block'],
        ['sdkBlock', 3, '.cosmos.base.tendermint.v1beta1.Block'],
      ],
    );
    assert.equal(latest.lookupType('cosmos.base.tendermint.v1beta1.Header').fields.proposerAddress?.type, 'string');

    // The files keep their options: the gateway route of each method, gogoproto's field options.
    const upgradeFiles = await reflectedFiles(reflection, 'cosmos.upgrade.v1beta1.Query');
    const upgradeSet = descriptorSet(upgradeFiles);
    // Read with the served descriptor.proto, whose options types carry the served extensions.
    const clientRoot = (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor(
      descriptor.FileDescriptorSet.decode(upgradeSet),
    );
    const fileType = clientRoot.lookupType('google.protobuf.FileDescriptorProto');
    const described = (name: string) => fileType.toObject(fileType.decode(upgradeFiles.get(name) as Uint8Array)) as any;
    assert.deepEqual(described('cosmos/upgrade/v1beta1/query.proto').service[0].method[0].options, {
      '.google.api.http': { get: '/cosmos/upgrade/v1beta1/current_plan' },
    });
    const plan = described('cosmos/upgrade/v1beta1/upgrade.proto').message_type.find((m: { name: string }) => m.name === 'Plan');
    assert.equal(plan.field.find((f: { name: string }) => f.name === 'time').options['.gogoproto.nullable'], false);

    // Calls through clients built from the reflected descriptors alone.
    const options = { keepCase: true, longs: String, enums: String, defaults: true };
    const Upgrade = serviceConstructor(loadPackageDefinition(loadFileDescriptorSetFromBuffer(upgradeSet, options)), 'cosmos.upgrade.v1beta1.Query');
    const upgrade = new Upgrade(node.addresses.grpc, credentials.createInsecure());
    t.after(() => upgrade.close());
    assert.deepEqual(await unary(upgrade, 'CurrentPlan', {}), { plan: null });
    assert.equal((await unary(upgrade, 'Authority', {})).address, 'cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn');

    const tmSet = descriptorSet(await reflectedFiles(reflection, 'cosmos.base.tendermint.v1beta1.Service'));
    const Tendermint = serviceConstructor(loadPackageDefinition(loadFileDescriptorSetFromBuffer(tmSet, options)), 'cosmos.base.tendermint.v1beta1.Service');
    const tendermint = new Tendermint(node.addresses.grpc, credentials.createInsecure());
    t.after(() => tendermint.close());
    const info = await unary(tendermint, 'GetNodeInfo', {});
    assert.equal(info.default_node_info.network, 'sim-1');
    assert.equal(info.default_node_info.other.rpc_address, node.addresses.rpc);
    assert.equal(info.application_version.version, 'genesis');
    const block = await unary(tendermint, 'GetLatestBlock', {});
    assert.equal(block.sdk_block.header.chain_id, 'sim-1');
    assert.match(block.sdk_block.header.proposer_address, /^cosmosvalcons1/);
  }
  assert.equal((await node.stop()).code, 0);
});

test('an answer carries the file and all its imports, option-only ones too; a stream does not send a file twice', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('genesis'), home);
  const names = (list: Uint8Array[]) => list.map((bytes) => (descriptor.FileDescriptorProto.decode(bytes) as unknown as { name: string }).name);
  const importsOf = (list: Uint8Array[]) =>
    new Map(
      list.map((bytes) => {
        const file = descriptor.FileDescriptorProto.decode(bytes) as unknown as { name: string; dependency: string[] };
        return [file.name, file.dependency];
      }),
    );

  for (const version of ['v1', 'v1alpha']) {
    const reflection = new GrpcReflection(node.addresses.grpc, credentials.createInsecure(), {}, version);
    const raw = reflection as unknown as { getProtoDescriptorBySymbol(symbol: string): Promise<Uint8Array[]> };
    const list = await raw.getProtoDescriptorBySymbol('cosmos.upgrade.v1beta1.Query');
    const served = names(list);
    assert.equal(served[0], 'cosmos/upgrade/v1beta1/query.proto');
    assert.equal(new Set(served).size, served.length, `${version}: no file twice`);
    // Closed under imports, breadth-first from the file asked for, as grpc-go's fileDescWithDependencies.
    const imports = importsOf(list);
    const expected = ['cosmos/upgrade/v1beta1/query.proto'];
    for (let i = 0; i < expected.length; i++) for (const dep of imports.get(expected[i] as string) ?? []) if (!expected.includes(dep)) expected.push(dep);
    assert.deepEqual(served, expected, version);
    for (const optionOnly of ['google/api/annotations.proto', 'gogoproto/gogo.proto', 'cosmos_proto/cosmos.proto']) {
      assert.ok(served.includes(optionOnly), `${version}: ${optionOnly} in ${served.join(', ')}`);
    }
    const tendermint = names(await raw.getProtoDescriptorBySymbol('cosmos.base.tendermint.v1beta1.GetLatestBlockResponse'));
    assert.equal(tendermint[0], 'cosmos/base/tendermint/v1beta1/query.proto');
    assert.ok(tendermint.includes('amino/amino.proto'), `${version}: amino in ${tendermint.join(', ')}`);
  }

  // One stream, two requests: the second answer leaves out the files the first sent (except its own first).
  const definition = loadSync(reflectionProto, { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true });
  const Reflection = serviceConstructor(loadPackageDefinition(definition), 'grpc.reflection.v1.ServerReflection');
  const client = new Reflection(node.addresses.grpc, credentials.createInsecure());
  t.after(() => client.close());
  const stream = (client as unknown as Record<string, () => any>).ServerReflectionInfo?.call(client);
  const answers: Array<{ fileDescriptorResponse?: { fileDescriptorProto: Uint8Array[] } }> = [];
  const done = new Promise<void>((resolve, reject) => {
    stream.on('data', (answer: (typeof answers)[number]) => answers.push(answer));
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  stream.write({ fileContainingSymbol: 'cosmos.upgrade.v1beta1.Query' });
  stream.write({ fileByFilename: 'cosmos/upgrade/v1beta1/upgrade.proto' });
  stream.write({ fileByFilename: 'cosmos/base/tendermint/v1beta1/query.proto' });
  stream.end();
  await done;
  const [first, second, third] = answers.map((a) => names(a.fileDescriptorResponse?.fileDescriptorProto ?? []));
  assert.ok(first?.includes('cosmos/upgrade/v1beta1/upgrade.proto'));
  assert.deepEqual(second, ['cosmos/upgrade/v1beta1/upgrade.proto']);
  assert.equal(third?.[0], 'cosmos/base/tendermint/v1beta1/query.proto');
  for (const name of third?.slice(1) ?? []) assert.ok(!first?.includes(name), `${name} was sent before`);
  assert.ok(third?.includes('tendermint/types/block.proto'));
  assert.equal((await node.stop()).code, 0);
});
