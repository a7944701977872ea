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

/**
 * What a Go node does on a panic it does not recover (an upgrade handler of a test variant): the
 * process prints `panic: <message>` and a goroutine trace on stderr and exits 2, committing nothing.
 * Not a halt: it ends the process whatever --halt-mode says.
 */
export class GoPanic extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoPanic';
  }
}

/** True when `error` is the OS error `code` (ENOENT, EEXIST, …). */
export function isErrno(error: unknown, code: string): error is NodeJS.ErrnoException {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

/** gRPC status codes used by the query services. */
export const GrpcCode = {
  unknown: 2,
  invalidArgument: 3,
  notFound: 5,
  failedPrecondition: 9,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
  unauthenticated: 16,
} as const;

/**
 * An error a message or query returns on chain: shown to clients with its code and codespace.
 * `message` is what ABCI carries (the transaction's or query's `log`); `grpcMessage` is the gRPC
 * status message, which for the SDK's registered errors puts the codespace and description first.
 */
export class ChainError extends Error {
  readonly codespace: string;
  readonly abciCode: number;
  readonly grpcCode: number;
  readonly grpcMessage: string;

  constructor(codespace: string, abciCode: number, message: string, grpcCode: number = GrpcCode.invalidArgument, grpcMessage = message) {
    super(message);
    this.name = 'ChainError';
    this.codespace = codespace;
    this.abciCode = abciCode;
    this.grpcCode = grpcCode;
    this.grpcMessage = grpcMessage;
  }
}

/**
 * A registered SDK error wrapped with context (`errorsmod.Wrapf(ErrX, "context")`): the log reads
 * `<context>: <description>`, and the gRPC status (errorsmod's GRPCStatus) reads
 * `codespace <cs> code <n>: <description>: <context>` with the code the error was registered with —
 * codes.Unknown (2) unless it was registered with another.
 */
export function wrappedError(codespace: string, abciCode: number, description: string, context: string, grpcCode: number = GrpcCode.unknown): ChainError {
  return new ChainError(codespace, abciCode, `${context}: ${description}`, grpcCode, `codespace ${codespace} code ${abciCode}: ${description}: ${context}`);
}

/**
 * A gRPC status a query handler returns as is (`status.Error(codes.X, "…")` in the SDK's keepers):
 * gRPC and REST show the code and message; over ABCI the SDK turns it into one of its own errors.
 */
export class StatusError extends Error {
  readonly grpcCode: number;

  constructor(grpcCode: number, message: string) {
    super(message);
    this.name = 'StatusError';
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

/**
 * A query's request bytes that are not the request message. gRPC refuses them before any handler runs
 * (grpc-go: Internal, `grpc: error unmarshalling request: …`); over ABCI the SDK answers `invalid request`.
 */
export class RequestDecodeError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'RequestDecodeError';
  }
}

/** Decodes a query request with its cosmjs-types message, throwing RequestDecodeError. */
export function decodeRequest<T>(type: { decode(bytes: Uint8Array): T }, bytes: Uint8Array): T {
  try {
    return type.decode(bytes);
  } catch (error) {
    throw new RequestDecodeError(error);
  }
}
