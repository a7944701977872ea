/**
 * The node could not be asked: not listening yet, restarting, or answering with an error.
 * Callers that poll treat it as "try again later"; one-shot commands report it with the hint.
 * `via` names what was asked ("the node's gRPC at localhost:9090", "the node's RPC at tcp://…", or
 * both when the chain reader asked one after the other).
 */
import { ChainvisorError } from '../shared/errors/index.js';

export class ChainUnavailableError extends ChainvisorError {
  readonly address: string;

  constructor(address: string, what: string, cause: unknown, via = `the node's gRPC at ${address}`) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('CHAINVISOR_CHAIN_UNAVAILABLE', `could not read ${what} from ${via}: ${reason}`, { cause });
    this.name = 'ChainUnavailableError';
    this.address = address;
  }
}

/**
 * The node answered, but not as a node answers: too large, nested too deep, of another shape, or with
 * values no chain has (a negative height, a share above 1, more validators than CometBFT allows). Still
 * "try again later" for callers (a proxy or a node mid-restart may answer rightly the next time); a
 * poller says it louder than a node not listening, since it will not pass by itself.
 */
export class ChainAnswerRefusedError extends ChainUnavailableError {
  constructor(address: string, what: string, reason: string, via?: string) {
    super(address, what, new Error(`the answer was refused: ${reason}`), via);
    this.name = 'ChainAnswerRefusedError';
  }
}

/**
 * The node answered the query, with an error of its own: `unknown` when it serves no such query (gRPC
 * UNIMPLEMENTED; abci_query code 6 "unknown query path"), which is how a chain without gov v1 is told
 * from one with it; `not-found` when what was asked is not there (gRPC NOT_FOUND; abci_query code 22 or
 * 38); `failed` for any other. Still "try again later" for pollers. `said` is the node's own words,
 * unclipped and unescaped: for matching only, never shown without shownText.
 */
export class ChainQueryError extends ChainUnavailableError {
  constructor(
    address: string,
    what: string,
    readonly kind: 'unknown' | 'not-found' | 'failed',
    readonly path: string,
    readonly said: string,
    reason: string,
    via?: string,
  ) {
    super(address, what, new Error(reason), via);
    this.name = 'ChainQueryError';
  }
}
