/**
 * The height a query is answered at, checked the way baseapp's CreateQueryContext does (Cosmos SDK
 * v0.50), and the errors it gives. Each error is a wrapped SDK error, which clients see in two forms:
 * ABCI (`abci_query`) logs `<text>: <description>` with the code and codespace; gRPC (and REST
 * through the gateway) reports status UNKNOWN — the SDK registers these errors without a gRPC code —
 * with the message `codespace sdk code <n>: <description>: <text>` (REST: HTTP 500).
 */
import { ChainError } from '../util/errors.js';

/** The gRPC metadata key (and REST header) that selects the height, and the one the response carries. */
export const blockHeightHeader = 'x-cosmos-block-height';
/** How grpc-gateway forwards the response's header metadata to HTTP. */
export const restBlockHeightHeader = 'Grpc-Metadata-X-Cosmos-Block-Height';

const grpcUnknown = 2;

/** An SDK error wrapped with a text: one message for ABCI, another for gRPC. */
export class WrappedSdkError extends ChainError {
  constructor(abciCode: number, description: string, text: string) {
    super('sdk', abciCode, `${text}: ${description}`, grpcUnknown, `codespace sdk code ${abciCode}: ${description}: ${text}`);
  }
}

const invalidRequest = (text: string) => new WrappedSdkError(18, 'invalid request', text);
const invalidHeight = (text: string) => new WrappedSdkError(26, 'invalid height', text);

/** The name the application reports (ABCI Info `data`), used in "not ready". */
export const appName = 'SimApp';

/** Where the kept states are: the last committed height and the first one still readable. */
export interface HeightRange {
  latest: number;
  /** undefined: no state but the latest is kept (history has not started). */
  earliest: number | undefined;
}

/**
 * The height a query at `requested` (0 = latest) is answered at; throws the SDK's error for a
 * negative height, a node without blocks, a future height, or a state no longer kept.
 */
export function queryHeight(requested: number, range: HeightRange): number {
  if (requested < 0) throw invalidRequest('cannot query with height < 0; please provide a valid height');
  const { latest, earliest } = range;
  if (latest === 0) throw invalidHeight(`${appName} is not ready; please wait for first block`);
  if (requested > latest) throw invalidHeight('cannot query with height in the future; please provide a valid height');
  const height = requested === 0 ? latest : requested;
  if (height !== latest && (earliest === undefined || height < earliest)) {
    // The SDK's text is the IAVL store's error for a version it no longer has, wrapped with the heights.
    const cause = 'version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height';
    throw new WrappedSdkError(38, 'not found', `failed to load state at height ${height}; ${cause} (latest height: ${latest})`);
  }
  return height;
}

/**
 * Parses the `x-cosmos-block-height` value as baseapp's gRPC interceptor does (Go's strconv.ParseInt,
 * base 10, int64), with its error.
 */
export function parseHeightHeader(value: string): number {
  const fail = (why: string) =>
    invalidRequest(
      `Baseapp.RegisterGRPCServer: invalid height header ${JSON.stringify(blockHeightHeader)}: strconv.ParseInt: parsing ${JSON.stringify(value)}: ${why}`,
    );
  if (!/^[+-]?\d+$/.test(value)) throw fail('invalid syntax');
  const big = BigInt(value);
  if (big > 9223372036854775807n || big < -9223372036854775808n) throw fail('value out of range');
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (big < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(big);
}
