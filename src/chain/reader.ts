/**
 * The chain reader: the node's gRPC first, its CometBFT RPC when gRPC is off or does not answer, behind
 * the one ChainClient interface that staging, `prepare-upgrade`, `rehearse` and manual upgrades use.
 * Whichever answers is asked first from then on, until it fails: a node with gRPC off, or bound where
 * nobody said, costs one failed gRPC read, not one per poll (the manual-upgrade runner reads the height
 * every 300 ms near its height with 2 s deadlines). gRPC turned off (`--grpc.enable=false`, app.toml
 * `[grpc] enable = false`) is never dialled. When neither answers, one error names both. A query the
 * node answered with an error (ChainQueryError: it serves no such query, what was asked is not there,
 * the request was refused) is its answer, not its absence: both transports reach the same query
 * router, so the other is not asked.
 */
import type { ChainAddresses } from './addresses.js';
import { ChainQueryError, ChainUnavailableError } from './errors.js';
import { type ChainClient, createGrpcClient } from './grpc-client.js';
import { createRpcClient } from './rpc-client.js';

export interface ChainReaderOptions {
  addresses: ChainAddresses;
  /** Deadline of one call to one of the two; default 5 s. */
  timeoutMs?: number;
  /** Tests: replace either client. */
  clients?: { grpc?: ChainClient; rpc?: ChainClient };
}

export interface ChainReader extends ChainClient {
  /** What answered the last successful read ("the node's RPC at tcp://…"); undefined before any. */
  answeredBy(): string | undefined;
}

export function createChainReader(options: ChainReaderOptions): ChainReader {
  const { addresses } = options;
  const timeoutMs = options.timeoutMs ?? 5000;
  const grpc = addresses.grpc.enabled ? (options.clients?.grpc ?? createGrpcClient({ address: addresses.grpc.address, timeoutMs })) : undefined;
  const rpc = options.clients?.rpc ?? createRpcClient({ address: addresses.rpc.address, timeoutMs });
  const sources = grpc === undefined ? [rpc] : [grpc, rpc];
  let preferred = sources[0] as ChainClient;
  let answered: ChainClient | undefined;
  const described =
    grpc === undefined ? `${rpc.describe()} (gRPC is off: ${addresses.grpc.source})` : `the node's gRPC at ${grpc.address} and its RPC at ${rpc.address}`;

  async function ask<T>(what: string, read: (client: ChainClient) => Promise<T>): Promise<T> {
    const failures: Array<{ client: ChainClient; error: ChainUnavailableError }> = [];
    for (const client of [preferred, ...sources.filter((s) => s !== preferred)]) {
      try {
        const value = await read(client);
        preferred = client;
        answered = client;
        return value;
      } catch (error) {
        if (!(error instanceof ChainUnavailableError)) throw error;
        // The node answered through its query router, which gRPC and abci_query share: the other way would answer the same.
        if (error instanceof ChainQueryError) {
          preferred = client;
          answered = client;
          throw error;
        }
        failures.push({ client, error });
      }
    }
    throw unavailable(what, failures);
  }

  function unavailable(what: string, failures: Array<{ client: ChainClient; error: ChainUnavailableError }>): ChainUnavailableError {
    const last = failures.at(-1) as { client: ChainClient; error: ChainUnavailableError };
    if (grpc === undefined) return new ChainUnavailableError(last.client.address, what, last.error.cause, described);
    const [first] = failures as [{ client: ChainClient; error: ChainUnavailableError }];
    const via = `${first.client.describe()} (${reasonOf(first.error)}) nor from ${last.client.describe()}`;
    return new ChainUnavailableError(last.client.address, what, last.error.cause, via);
  }

  return {
    get address() {
      return preferred.address;
    },
    describe: () => described,
    answeredBy: () => answered?.describe(),
    query: (path, request, what, maxBytes) => ask(what, (client) => client.query(path, request, what, maxBytes)),
    currentPlan: () => ask('the scheduled upgrade plan', (client) => client.currentPlan()),
    latestHeight: () => ask('the latest block height', (client) => client.latestHeight()),
    close() {
      for (const client of sources) client.close();
    },
  };
}

function reasonOf(error: ChainUnavailableError): string {
  return error.cause instanceof Error ? error.cause.message : String(error.cause);
}
