/**
 * The node could not be asked: not listening yet, restarting, or answering with an error.
 * Callers that poll treat it as "try again later"; one-shot commands report it with the hint.
 * `via` names what was asked ("the node's gRPC at localhost:9090", "the node's RPC at tcp://…", or
 * both when the chain reader asked one after the other).
 */
import { ChainvisorError } from '../../shared/errors/index.js';

export class ChainUnavailableError extends ChainvisorError {
  readonly address: string;

  constructor(address: string, what: string, cause: unknown, via = `the node's gRPC at ${address}`) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('CHAINVISOR_CHAIN_UNAVAILABLE', `could not read ${what} from ${via}: ${reason}`, { cause });
    this.name = 'ChainUnavailableError';
    this.address = address;
  }
}
