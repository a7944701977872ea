/** A query method on protobuf bytes, as the query services (gRPC, ABCI, REST) call it: request in, response out. */
export type ProtoHandler = (request: Uint8Array) => Promise<Uint8Array>;
