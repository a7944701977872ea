/**
 * What a reflection client gets from the node: the files describing a symbol, fetched as grpcurl
 * fetches them, and a protobufjs Root built from them alone.
 */
import type { GrpcReflection } from 'grpc-js-reflection-client';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';

/**
 * The files of `symbol` exactly as reflection serves them: the file, then every file it
 * imports, fetched by name as grpcurl does. (The client's own Descriptor re-encodes the set through
 * protobufjs, which repeats each gogoproto option extension on the extended descriptor.proto type;
 * proto-loader then refuses the duplicate, against this node as against any Cosmos node.)
 */
export async function reflectedFiles(reflection: GrpcReflection, symbol: string, into = new Map<string, Uint8Array>()): Promise<Map<string, Uint8Array>> {
  const raw = reflection as unknown as {
    getProtoDescriptorBySymbol(symbol: string): Promise<Uint8Array[]>;
    getProtoDescriptorByFileName(name: string): Promise<Uint8Array[]>;
  };
  const add = async (list: Uint8Array[]): Promise<void> => {
    for (const bytes of list) {
      const { name, dependency } = descriptor.FileDescriptorProto.decode(bytes) as unknown as { name: string; dependency: string[] };
      if (into.has(name)) continue;
      into.set(name, bytes);
      for (const imported of dependency) if (!into.has(imported)) await add(await raw.getProtoDescriptorByFileName(imported));
    }
  };
  await add(await raw.getProtoDescriptorBySymbol(symbol));
  return into;
}

/** A protobufjs Root of these serialized FileDescriptorProtos. */
export function rootOfFiles(files: Map<string, Uint8Array>): protobuf.Root {
  const set = descriptor.FileDescriptorSet.fromObject({ file: [...files.values()].map((b) => descriptor.FileDescriptorProto.decode(b)) });
  return (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor(set);
}
