/**
 * A fake gRPC server on a real local port: each method path answers what the test's function returns
 * for the request's bytes — raw protobuf bytes as a node would, or a gRPC status — so that a test can
 * play a hostile node (an answer of megabytes, a list that never ends, bytes of another message).
 */
import { type MethodDefinition, type sendUnaryData, Server, ServerCredentials, type ServerUnaryCall } from '@grpc/grpc-js';

export type GrpcAnswer = Uint8Array | { code: number; details: string };

export interface FakeGrpc {
  /** `127.0.0.1:<port>`, as DAEMON_GRPC_ADDRESS is written. */
  address: string;
  /** The paths asked so far, in order. */
  calls: string[];
  close(): Promise<void>;
}

export async function startFakeGrpc(answers: Record<string, (request: Buffer) => GrpcAnswer>): Promise<FakeGrpc> {
  const server = new Server();
  const calls: string[] = [];
  const same = (bytes: Buffer) => bytes;
  const definition: Record<string, MethodDefinition<Buffer, Buffer>> = {};
  const handlers: Record<string, (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => void> = {};
  for (const [path, answer] of Object.entries(answers)) {
    definition[path] = {
      path,
      requestStream: false,
      responseStream: false,
      requestSerialize: same,
      requestDeserialize: same,
      responseSerialize: same,
      responseDeserialize: same,
    };
    handlers[path] = (call, callback) => {
      calls.push(path);
      const reply = answer(call.request);
      if (reply instanceof Uint8Array) callback(null, Buffer.from(reply));
      else callback(reply);
    };
  }
  server.addService(definition, handlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { address: `127.0.0.1:${port}`, calls, close: async () => server.forceShutdown() };
}
