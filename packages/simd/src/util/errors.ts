/**
 * Errors of the simulated node. Chain-level failures carry the ABCI `code` and `codespace` a real
 * Cosmos node would report, so clients see the same numbers.
 */


/** A failure of the node program itself (bad flag, unreadable genesis, node not reachable). */
export class SimError extends Error {
  readonly code: string;
  readonly hint: string | undefined;

  constructor(code: string, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SimError';
    this.code = code;
    this.hint = options.hint;
  }
}

/** True when `error` is the OS error `code` (ENOENT, EEXIST, …). */
export function isErrno(error: unknown, code: string): error is NodeJS.ErrnoException {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

/** gRPC status codes used by the query services. */
export const GrpcCode = { invalidArgument: 3, notFound: 5, unavailable: 14, internal: 13 } as const;

/** An error a message or query returns on chain: shown to clients with its code and codespace. */
export class ChainError extends Error {
  readonly codespace: string;
  readonly abciCode: number;
  readonly grpcCode: number;

  constructor(codespace: string, abciCode: number, message: string, grpcCode: number = GrpcCode.invalidArgument) {
    super(message);
    this.name = 'ChainError';
    this.codespace = codespace;
    this.abciCode = abciCode;
    this.grpcCode = grpcCode;
  }
}

/** The SDK's generic `invalid request` (codespace sdk, code 18): plan validation uses it. */
export function invalidRequest(message: string): ChainError {
  return new ChainError('sdk', 18, message);
}

/** The SDK's `unauthorized` (codespace sdk, code 4). */
export function unauthorized(message: string): ChainError {
  return new ChainError('sdk', 4, message);
}

/** The SDK's `not found` (codespace sdk, code 38). */
export function notFound(message: string): ChainError {
  return new ChainError('sdk', 38, message, GrpcCode.notFound);
}
