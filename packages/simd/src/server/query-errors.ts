/**
 * How a query handler's error looks on each surface, as a Cosmos-SDK v0.50 node shows it:
 * - gRPC (and REST, whose gateway goes through gRPC): the handler's status as is — a StatusError's code
 *   and message, a registered error's code (Unknown unless registered with another) and
 *   `codespace <cs> code <n>: …` message;
 * - ABCI (`abci_query`): baseapp's gRPCErrorToSDKError wraps the error's text in one of the SDK's root
 *   errors chosen by the gRPC code (NotFound → `key not found` 22, InvalidArgument/FailedPrecondition →
 *   `invalid request` 18, Unauthenticated → `unauthorized` 4, others → `unknown request` 6; an error
 *   with no gRPC status → `invalid request`), codespace `sdk`.
 * - REST: the HTTP status grpc-gateway derives from the gRPC code (runtime.HTTPStatusFromCode).
 */
import { ChainError, GrpcCode, RequestDecodeError, StatusError } from '../util/errors.js';

const codeNames = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
] as const;

const httpStatuses = [200, 408, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401] as const;

/** grpc-gateway's runtime.HTTPStatusFromCode. */
export function httpStatusFromCode(code: number): number {
  return httpStatuses[code] ?? 500;
}

const root = {
  invalidRequest: { code: 18, description: 'invalid request' },
  keyNotFound: { code: 22, description: 'key not found' },
  unauthorized: { code: 4, description: 'unauthorized' },
  unknownRequest: { code: 6, description: 'unknown request' },
} as const;

function rootFor(grpcCode: number) {
  switch (grpcCode) {
    case GrpcCode.notFound:
      return root.keyNotFound;
    case GrpcCode.invalidArgument:
    case GrpcCode.failedPrecondition:
      return root.invalidRequest;
    case GrpcCode.unauthenticated:
      return root.unauthorized;
    default:
      return root.unknownRequest;
  }
}

/** The gRPC status of an error a handler threw. */
export function grpcStatusOf(error: unknown): { code: number; message: string } {
  if (error instanceof ChainError) return { code: error.grpcCode, message: error.grpcMessage };
  if (error instanceof StatusError) return { code: error.grpcCode, message: error.message };
  if (error instanceof RequestDecodeError) return { code: GrpcCode.internal, message: `grpc: error unmarshalling request: ${error.message}` };
  return { code: GrpcCode.unknown, message: error instanceof Error ? error.message : String(error) };
}

/**
 * The error of a gRPC-routed query as one ChainError carrying both faces: the ABCI code, codespace and
 * log baseapp makes of it, and the gRPC status the handler gave.
 */
export function grpcRoutedError(error: unknown): ChainError {
  if (error instanceof StatusError) {
    const base = rootFor(error.grpcCode);
    const text = `rpc error: code = ${codeNames[error.grpcCode] ?? `Code(${error.grpcCode})`} desc = ${error.message}`;
    return new ChainError('sdk', base.code, `${text}: ${base.description}`, error.grpcCode, error.message);
  }
  if (error instanceof ChainError) {
    const base = rootFor(error.grpcCode);
    return new ChainError('sdk', base.code, `${error.message}: ${base.description}`, error.grpcCode, error.grpcMessage);
  }
  // An error without a gRPC status (a request that does not decode, as in the SDK) is `invalid request`.
  const message = error instanceof Error ? error.message : String(error);
  const grpc = grpcStatusOf(error);
  return new ChainError('sdk', root.invalidRequest.code, `${message}: ${root.invalidRequest.description}`, grpc.code, grpc.message);
}

/**
 * baseapp's answer to a path no service serves: code 6, `unknown query path: unknown request`, and
 * (unlike a handler's error) no height in the response.
 */
export class UnknownQueryPath extends ChainError {
  constructor() {
    super('sdk', root.unknownRequest.code, `unknown query path: ${root.unknownRequest.description}`, GrpcCode.unimplemented);
  }
}

export function unknownQueryPath(): ChainError {
  return new UnknownQueryPath();
}
