/**
 * The node could not be asked: not listening yet, restarting, or answering with an error.
 * Callers that poll treat it as "try again later"; one-shot commands report it with the hint.
 */
import { ChainvisorError } from '../errors/index.js';

export class ChainUnavailableError extends ChainvisorError {
  readonly address: string;

  constructor(address: string, what: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('CHAINVISOR_CHAIN_UNAVAILABLE', `could not read ${what} from the node's gRPC at ${address}: ${reason}`, {
      hint: 'check that the node is running with gRPC enabled and that DAEMON_GRPC_ADDRESS points at it (host:port, default localhost:9090)',
      cause,
    });
    this.name = 'ChainUnavailableError';
    this.address = address;
  }
}
