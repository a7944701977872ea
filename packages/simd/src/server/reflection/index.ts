/**
 * gRPC server reflection (`grpc.reflection.v1` and `v1alpha`) for every service the node serves, as a
 * Cosmos node has it: `grpcurl list`/`describe` and reflection clients get each service's file and
 * every file it imports (gogoproto, cosmos_proto, amino, google/api, tendermint types…), in the
 * order and with the per-stream de-duplication of the SDK's reflection server (file-imports.ts).
 */
import type { MethodDefinition, Server, ServiceDefinition } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';

import { SimError } from '../../util/errors.js';
import { fileDescriptors } from './file-descriptors.js';
import { perStreamFiles, type ReflectionImplementation, useImportGraph } from './file-imports.js';
import { type ProtoSources, readProtoSources } from './proto-sources.js';
import { upgradeToSdk050 } from './sdk-050.js';

export const reflectionServices = ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'] as const;

/** The .proto file that defines each service the node can serve. */
const serviceFiles: Readonly<Record<string, string>> = {
  'cosmos.upgrade.v1beta1.Query': 'cosmos/upgrade/v1beta1/query.proto',
  'cosmos.base.tendermint.v1beta1.Service': 'cosmos/base/tendermint/v1beta1/query.proto',
  'cosmos.gov.v1.Query': 'cosmos/gov/v1/query.proto',
  'cosmos.gov.v1beta1.Query': 'cosmos/gov/v1beta1/query.proto',
  'cosmos.staking.v1beta1.Query': 'cosmos/staking/v1beta1/query.proto',
  'grpc.reflection.v1.ServerReflection': 'grpc/reflection/v1/reflection.proto',
  'grpc.reflection.v1alpha.ServerReflection': 'grpc/reflection/v1alpha/reflection.proto',
};

/**
 * Files described without their services being served: the messages a served answer carries in an
 * Any (a proposal's MsgSoftwareUpgrade, MsgVote…, a validator's PubKey), so a reflection client can
 * resolve those too.
 */
const typeFiles: Readonly<Record<string, readonly string[]>> = {
  'cosmos.gov.v1.Query': ['cosmos/upgrade/v1beta1/tx.proto', 'cosmos/gov/v1/tx.proto'],
  'cosmos.gov.v1beta1.Query': ['cosmos/upgrade/v1beta1/tx.proto', 'cosmos/gov/v1beta1/tx.proto'],
  'cosmos.staking.v1beta1.Query': ['cosmos/crypto/ed25519/keys.proto'],
  // A validator's pub_key.
  'cosmos.base.tendermint.v1beta1.Service': ['cosmos/crypto/ed25519/keys.proto'],
};

function missingDescriptor(service: string): SimError {
  return new SimError('SIM_NO_DESCRIPTOR', `gRPC service ${service} is served but has no protobuf descriptor for reflection`, {
    hint: 'add its .proto file to serviceFiles in server/reflection/index.ts',
  });
}

function loadServices(services: readonly string[]): ProtoSources {
  const names = services.map((service) => {
    const file = serviceFiles[service];
    if (file === undefined) throw missingDescriptor(service);
    return file;
  });
  const sources = readProtoSources([...new Set([...names, ...services.flatMap((service) => typeFiles[service] ?? [])])]);
  upgradeToSdk050(sources);
  for (const service of services) {
    if (sources.root.lookup(service) === null) throw missingDescriptor(service);
  }
  sources.root.resolveAll();
  return sources;
}

/** The serialized FileDescriptorProtos of `services` and of every file they import, by file name. */
export function describeServices(services: readonly string[]): Map<string, Uint8Array> {
  return fileDescriptors(loadServices(services));
}

let allTypes: ProtoSources['root'] | undefined;

/** Every message type of the services the node can serve (for rendering them as JSON), loaded once. */
export function protoTypes(): ProtoSources['root'] {
  allTypes ??= loadServices(Object.keys(serviceFiles)).root;
  return allTypes;
}

/**
 * Adds both reflection services to `server`, describing `served` and themselves. The descriptors are
 * built at the first reflection call, not at start: reading and resolving the .proto files is about a
 * third of a start's CPU, and most runs of the node never get a reflection call.
 */
export function addReflection(server: Pick<Server, 'addService'>, served: readonly string[]): void {
  const services = [...served, ...reflectionServices];
  for (const service of services) if (serviceFiles[service] === undefined) throw missingDescriptor(service);
  let registered: Map<string, Registered> | undefined;
  const built = (name: string): Registered => {
    registered ??= registerReflection(services);
    const found = registered.get(name);
    if (found === undefined) throw new SimError('SIM_NO_DESCRIPTOR', `@grpc/reflection registered no ${name}`);
    return found;
  };
  for (const name of reflectionServices) {
    const method = (): MethodDefinition<unknown, unknown> => built(name).definition[reflectionMethod] as MethodDefinition<unknown, unknown>;
    const definition: ServiceDefinition = {
      [reflectionMethod]: {
        path: `/${name}/${reflectionMethod}`,
        requestStream: true,
        responseStream: true,
        originalName: 'serverReflectionInfo',
        requestSerialize: (value: unknown) => method().requestSerialize(value),
        requestDeserialize: (bytes: Buffer) => method().requestDeserialize(bytes),
        responseSerialize: (value: unknown) => method().responseSerialize(value),
        responseDeserialize: (bytes: Buffer) => method().responseDeserialize(bytes),
      },
    };
    server.addService(definition, { [reflectionMethod]: (stream: unknown) => built(name).handler(stream) });
  }
}

const reflectionMethod = 'ServerReflectionInfo';

interface Registered {
  definition: ServiceDefinition;
  handler: (stream: unknown) => void;
}

/** @grpc/reflection's two services for `services`, as it would add them to a server, by service name. */
function registerReflection(services: readonly string[]): Map<string, Registered> {
  const built = describeServices(services);
  // @grpc/reflection reads only the fileDescriptorProtos of a proto-loader package definition.
  const files = [...built.values()].map((bytes) => Buffer.from(bytes));
  const definition = { files: { format: 'Protocol Buffer 3 DescriptorProto', type: {}, fileDescriptorProtos: files } };
  const reflection = new ReflectionService(definition as unknown as ConstructorParameters<typeof ReflectionService>[0], { services: [...services] });
  // It re-encodes each file with protobufjs's descriptor types, which drop the options' extensions
  // (gogoproto, google.api.http…): serve the files as built. Were its internals to change, the files
  // would go out without those options, still complete for resolving every type.
  const internals = reflection as unknown as { v1?: ReflectionImplementation; v1Alpha?: ReflectionImplementation };
  for (const version of [internals.v1, internals.v1Alpha]) {
    if (version === undefined) continue;
    useImportGraph(version);
    if (version.files === undefined || !(version.fileEncodings instanceof Map)) continue;
    for (const [name, file] of Object.entries(version.files)) {
      const bytes = built.get(name);
      if (bytes !== undefined) version.fileEncodings.set(file, bytes);
    }
  }
  const names = new Map([...built].map(([name, bytes]) => [bytes, name]));
  const registered = new Map<string, Registered>();
  const capture: Pick<Server, 'addService'> = {
    addService(service, implementation) {
      const method = service[reflectionMethod];
      const handler = (implementation as Record<string, ((stream: unknown) => void) | undefined>)[reflectionMethod];
      if (method === undefined || handler === undefined) return;
      registered.set(method.path.split('/')[1] as string, { definition: service, handler });
    },
  };
  reflection.addToServer(perStreamFiles(capture, names));
  return registered;
}
