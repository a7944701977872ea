/**
 * A grpc-js client as the `Rpc` cosmjs-types' QueryClientImpl classes take, and a raw unary call (for a
 * path no generated client knows), plaintext to the node's gRPC address.
 */
import { Client, credentials, type ServiceError } from '@grpc/grpc-js';

export interface GrpcRpc {
  client: Client;
  rpc: { request(service: string, method: string, data: Uint8Array): Promise<Uint8Array> };
  call(path: string, data?: Uint8Array): Promise<Uint8Array>;
}

export function grpcRpc(address: string): GrpcRpc {
  const client = new Client(address, credentials.createInsecure());
  const call = (path: string, data: Uint8Array = new Uint8Array()) =>
    new Promise<Uint8Array>((resolve, reject) => {
      client.makeUnaryRequest(
        path,
        (x: Uint8Array) => Buffer.from(x),
        (b: Buffer) => new Uint8Array(b),
        data,
        (error, value) => (error ? reject(error) : resolve(value as Uint8Array)),
      );
    });
  return { client, rpc: { request: (service, method, data) => call(`/${service}/${method}`, data) }, call };
}

/** The gRPC error a promise rejects with (fails the test if it resolves). */
export async function grpcError(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}
