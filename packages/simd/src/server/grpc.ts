/**
 * The gRPC server (`--grpc.address`), plaintext, serving the protobuf query services with the real
 * messages, so any Cosmos client library (cosmjs-types' QueryClientImpl, grpcurl, …) can talk to it,
 * and server reflection describing each of them. As baseapp's interceptor: request metadata `x-cosmos-block-height` selects the height, and every
 * answer whose height was accepted carries `x-cosmos-block-height` in its header metadata.
 */
import {
  logVerbosity,
  Metadata,
  type MethodDefinition,
  type sendUnaryData,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  setLogVerbosity,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

import { grpcGoUnknownMethodWords } from './grpc-unknown.js';
import { listenError } from './http.js';
import { grpcStatusOf } from './query-errors.js';
import { blockHeightHeader, parseHeightHeader } from './query-height.js';
import type { QueryService } from './query-service.js';
import { addReflection } from './reflection/index.js';

const identity = (value: Buffer | Uint8Array) => Buffer.from(value);

export function createGrpcServer(queries: QueryService): Server {
  // grpc-js would print its own copy of bind errors; ours (listenError) names the flag and the fix.
  setLogVerbosity(logVerbosity.NONE);
  const server = new Server();
  grpcGoUnknownMethodWords(server);
  for (const [service, methods] of Object.entries(queries.services)) {
    const definition: Record<string, MethodDefinition<Buffer, Buffer>> = {};
    const implementation: UntypedServiceImplementation = {};
    for (const method of Object.keys(methods)) {
      const path = `/${service}/${method}`;
      definition[method] = {
        path,
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      };
      implementation[method] = (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        const fail = (error: unknown) => {
          const { code, message } = grpcStatusOf(error);
          callback({ code, details: message });
        };
        let height: number;
        try {
          const asked = call.metadata.get(blockHeightHeader);
          height = queries.heightFor(asked.length === 1 ? parseHeightHeader(String(asked[0])) : 0);
        } catch (error) {
          fail(error);
          return;
        }
        const header = new Metadata();
        header.set(blockHeightHeader, String(height));
        call.sendMetadata(header);
        queries.query(path, call.request, height).then((response) => callback(null, Buffer.from(response)), fail);
      };
    }
    server.addService(definition, implementation);
  }
  addReflection(server, Object.keys(queries.services));
  return server;
}

/** Binds to `host:port` (port 0 allowed) and resolves with the bound port. */
export async function bindGrpc(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(listenError('--grpc.address', address, error)) : resolve(port),
    );
  });
}

export async function closeGrpc(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, 1000);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
