/**
 * Every query the node answers, by ABCI path. Protobuf services (`/cosmos.upgrade.v1beta1.Query/…`,
 * `/cosmos.gov.v1.Query/…`, `/cosmos.gov.v1beta1.Query/…`, `/cosmos.base.tendermint.v1beta1.Service/…`)
 * take and return the real protobuf messages; the simulation's own paths (`/sim/…`: gov proposals and
 * their grpc-gateway JSON, stores, node state) take and return JSON. A handler's error carries both its
 * gRPC status and what baseapp makes of it over ABCI (query-errors.ts).
 * gRPC serves the protobuf services, REST renders them as JSON, the CLI reaches all over RPC.
 */
import type { KVReader } from '../store/kv.js';
import { prefixed } from '../store/kv.js';
import { appliedStoreUpgrades, mountedStores } from '../store/stores.js';
import { ChainError } from '../util/errors.js';
import { upgradeQueries, upgradeQueryService, type ProtoHandler } from '../upgrade/queries.js';
import { tendermintQueries, tendermintService } from '../chain/queries.js';
import { allProposals, getParams, govStorePrefix } from '../gov/state.js';
import { govGatewayQueries, govQueries } from '../gov/queries.js';
import { createGovViews } from '../gov/query-views.js';
import { grpcRoutedError, unknownQueryPath } from './query-errors.js';

/** What the running node says about itself (`/sim/node`). */
export interface NodeState {
  version: string;
  chain_id: string;
  block_time_ms: number;
  halt_mode: 'exit' | 'stay';
  /** Set once block production stopped. */
  halted: { kind: string; height: number; message: string } | null;
}

export interface QueryService {
  /** Protobuf services for gRPC: service name → method name → handler. */
  readonly services: Readonly<Record<string, Readonly<Record<string, ProtoHandler>>>>;
  /** Answers an ABCI query path; throws ChainError. */
  query(path: string, data: Uint8Array): Promise<Uint8Array>;
}

type JsonHandler = (request: Record<string, unknown>) => Promise<unknown>;

export function createQueryService(options: { reader: () => KVReader; node: () => NodeState }): QueryService {
  const { reader, node } = options;
  const services = {
    [upgradeQueryService]: upgradeQueries(reader),
    [tendermintService]: tendermintQueries(reader),
    ...govQueries(reader),
  };
  const views = createGovViews(reader);
  const gov = () => prefixed(reader(), govStorePrefix);
  const json: Record<string, JsonHandler> = {
    '/sim/gov/proposal': async (request) => {
      const id = String(request.proposal_id ?? '');
      return { proposal: await views.proposal({ proposalId: /^\d+$/.test(id) ? BigInt(id) : 0n }) };
    },
    '/sim/gov/proposals': async () => ({ proposals: await allProposals(gov()) }),
    '/sim/gov/params': async () => ({ params: await getParams(gov()) }),
    '/sim/stores': async () => ({
      stores: (await mountedStores(reader())).map((s) => ({ name: s.name, added_height: String(s.addedHeight) })),
      store_upgrades: Object.fromEntries(
        Object.entries(await appliedStoreUpgrades(reader())).map(([name, height]) => [name, String(height)]),
      ),
    }),
    '/sim/node': async () => node(),
    ...govGatewayQueries(reader),
  };
  return {
    services,
    async query(path, data) {
      const match = /^\/([\w.]+)\/(\w+)$/.exec(path);
      if (match !== null) {
        const handler = (services as Record<string, Record<string, ProtoHandler>>)[match[1] as string]?.[match[2] as string];
        if (handler !== undefined) {
          try {
            return await handler(data);
          } catch (error) {
            throw grpcRoutedError(error);
          }
        }
      }
      const handler = Object.hasOwn(json, path) ? json[path] : undefined;
      if (handler === undefined) throw unknownQueryPath();
      const text = Buffer.from(data).toString('utf8');
      let request: Record<string, unknown> = {};
      if (text.trim() !== '') {
        try {
          request = JSON.parse(text) as Record<string, unknown>;
        } catch {
          throw new ChainError('sdk', 6, `query ${path} expects JSON data`);
        }
      }
      try {
        return Buffer.from(JSON.stringify(await handler(request)));
      } catch (error) {
        throw grpcRoutedError(error);
      }
    },
  };
}
