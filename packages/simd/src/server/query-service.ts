/**
 * Every query the node answers, by ABCI path. Protobuf services (`/cosmos.upgrade.v1beta1.Query/…`,
 * `/cosmos.base.tendermint.v1beta1.Service/…`) take and return the real protobuf messages; the
 * simulation's own paths (`/sim/…`: gov proposals, stores, node state) take and return JSON.
 * gRPC serves the protobuf services, REST renders them as JSON, the CLI reaches all over RPC.
 * A query can ask for a past height (query-height.ts): the module stores are then read as committed
 * at that height; the block service always answers from the block store, as CometBFT does.
 */
import type { KVReader } from '../store/kv.js';
import { prefixed } from '../store/kv.js';
import { appliedStoreUpgrades, mountedStores } from '../store/stores.js';
import { ChainError, GrpcCode } from '../util/errors.js';
import { upgradeQueries, upgradeQueryService, type ProtoHandler } from '../upgrade/queries.js';
import { tendermintQueries, tendermintService } from '../chain/queries.js';
import type { NodeIdentity } from '../chain/node-info.js';
import { allProposals, getParams, getProposal, govStorePrefix } from '../gov/state.js';
import { unknownProposal } from '../gov/errors.js';
import { queryHeight, type HeightRange } from './query-height.js';

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
  /**
   * Answers an ABCI query path at `height` (0 = latest; checked with heightFor); throws ChainError.
   * An unknown path fails before the height is looked at.
   */
  query(path: string, data: Uint8Array, height?: number): Promise<Uint8Array>;
  /** True when `path` is a query this node answers. */
  knows(path: string): boolean;
  /** The height a query asking for `requested` (0 = latest) is answered at; throws the SDK's height errors. */
  heightFor(requested: number): number;
}

type JsonHandler = (request: Record<string, unknown>) => Promise<unknown>;

function unknownPath(path: string): ChainError {
  return new ChainError('sdk', 6, `unknown query path ${JSON.stringify(path)}: unknown request`, GrpcCode.notFound);
}

export interface QueryServiceOptions {
  /** The latest committed state. */
  reader: () => KVReader;
  node: () => NodeState;
  /** The last committed height and the first one still kept. */
  heights: () => HeightRange;
  /** The state as committed at a kept height below the latest. */
  readerAt: (height: number) => KVReader;
  /** Who the node is (GetNodeInfo). */
  identity: NodeIdentity;
}

type ProtoServices = Record<string, Record<string, ProtoHandler>>;

/** The queries answered from `reader`: the module stores as committed at one height. */
function stateQueries(reader: () => KVReader, node: () => NodeState) {
  const gov = () => prefixed(reader(), govStorePrefix);
  const json: Record<string, JsonHandler> = {
    '/sim/gov/proposal': async (request) => {
      const id = String(request.proposal_id ?? '');
      const proposal = /^\d+$/.test(id) ? await getProposal(gov(), id) : undefined;
      if (proposal === undefined) throw unknownProposal(id);
      return { proposal };
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
  };
  return { upgrade: upgradeQueries(reader), json };
}

export function createQueryService(options: QueryServiceOptions): QueryService {
  const { reader: latest, node, heights, readerAt, identity } = options;
  const atLatest = stateQueries(latest, node);
  const services: ProtoServices = {
    [upgradeQueryService]: atLatest.upgrade,
    // Blocks come from the block store whatever the height asked (CometBFT answers them, not the state).
    [tendermintService]: tendermintQueries(latest, identity),
  };
  const protoMethod = (path: string) => /^\/([\w.]+)\/(\w+)$/.exec(path);
  const knows = (path: string) => {
    const match = protoMethod(path);
    if (match !== null && services[match[1] as string]?.[match[2] as string] !== undefined) return true;
    return Object.hasOwn(atLatest.json, path);
  };
  const heightFor = (requested: number) => queryHeight(requested, heights());
  return {
    services,
    knows,
    heightFor,
    async query(path, data, requested = 0) {
      if (!knows(path)) throw unknownPath(path);
      const height = heightFor(requested);
      const at = height === heights().latest ? atLatest : stateQueries(() => readerAt(height), node);
      const match = protoMethod(path);
      if (match !== null) {
        const [service, method] = [match[1] as string, match[2] as string];
        const handler = service === upgradeQueryService ? at.upgrade[method] : services[service]?.[method];
        if (handler !== undefined) return handler(data);
      }
      const handler = at.json[path] as JsonHandler;
      const text = Buffer.from(data).toString('utf8');
      let request: Record<string, unknown> = {};
      if (text.trim() !== '') {
        try {
          request = JSON.parse(text) as Record<string, unknown>;
        } catch {
          throw new ChainError('sdk', 6, `query ${path} expects JSON data`);
        }
      }
      return Buffer.from(JSON.stringify(await handler(request)));
    },
  };
}
