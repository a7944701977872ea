/**
 * JSON-RPC 2.0 envelopes and error codes as CometBFT's RPC server writes them
 * (rpc/jsonrpc/types): a null id is left out, an empty error `data` is left out.
 */
export type RpcId = number | string | null | undefined;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data = '',
  ) {
    super(message);
  }
}

export const parseError = (data: string) => new RpcError(-32700, 'Parse error. Invalid JSON', data);
export const invalidRequest = (data: string) => new RpcError(-32600, 'Invalid Request', data);
export const methodNotFound = () => new RpcError(-32601, 'Method not found');
export const invalidParams = (data: string) => new RpcError(-32602, 'Invalid params', data);
export const internalError = (data: string) => new RpcError(-32603, 'Internal error', data);
export const serverError = (data: string) => new RpcError(-32000, 'Server error', data);

/** A parameter that cannot be converted; each transport words and codes it as CometBFT does. */
export class ParamError extends Error {}

export interface RpcResponse {
  jsonrpc: '2.0';
  id?: number | string;
  result?: unknown;
  error?: { code: number; message: string; data?: string };
}

function idOf(id: RpcId): number | string | undefined {
  return id === null ? undefined : id;
}

export function success(id: RpcId, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id: idOf(id), result };
}

export function failure(id: RpcId, error: RpcError): RpcResponse {
  const body = error.data === '' ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };
  return { jsonrpc: '2.0', id: idOf(id), error: body };
}

/** Any error a method throws: RpcErrors as they are, everything else as CometBFT's -32603 with its message. */
export function asRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  return internalError(error instanceof Error ? error.message : String(error));
}
