/**
 * Every query the node answers, by ABCI path. Protobuf services (`/cosmos.upgrade.v1beta1.Query/…`,
 * `/cosmos.gov.v1.Query/…` (not on a v1beta1-only chain), `/cosmos.gov.v1beta1.Query/…`,
 * `/cosmos.staking.v1beta1.Query/Validators|Validator`, `/cosmos.base.tendermint.v1beta1.Service/…`)
 * take and return the real protobuf messages; the simulation's own paths (`/sim/…`: gov proposals and
 * their grpc-gateway JSON, stores, node state) take and return JSON. A handler's error carries both its
 * gRPC status and what baseapp makes of it over ABCI (query-errors.ts).
 * gRPC serves the protobuf services, REST renders them as JSON, the CLI reaches all over RPC.
 * A query can ask for a past height (query-height.ts): the module stores are then read as committed
 * at that height; the block service always answers from the block store, as CometBFT does.
 */
import type { Genesis } from '../chain/genesis.js';
import type { NodeIdentity } from '../chain/node-info.js';
import { tendermintQueries, tendermintService } from '../chain/queries.js';
import { type ValidatorSet, validatorSet } from '../chain/validator-set.js';
import { getSequence } from '../core/accounts.js';
import type { ProtoHandler } from '../core/query.js';
import { govGatewayQueries, govQueries, govV1Service } from '../gov/queries.js';
import { createGovViews } from '../gov/query-views.js';
import { allProposals, getParams, govStorePrefix } from '../gov/state.js';
import { stakingGatewayQueries, stakingQueries, type StakingSource } from '../staking/queries.js';
import { genesisIdentities } from '../staking/validators.js';
import type { KVReader } from '../store/kv.js';
import { prefixed } from '../store/kv.js';
import { appliedStoreUpgrades, mountedStores } from '../store/stores.js';
import { upgradeQueries, upgradeQueryService } from '../upgrade/queries.js';
import { ChainError } from '../util/errors.js';
import { abciQueryMethod, type AbciQuerySource } from './abci-query.js';
import { grpcRoutedError, unknownQueryPath } from './query-errors.js';
import { type HeightRange, queryHeight } from './query-height.js';
import { validatorSetQueries } from './validator-sets.js';

/** What the running node says about itself (`/sim/node`). */
export interface NodeState {
  version: string;
  chain_id: string;
  block_time_ms: number;
  halt_mode: 'exit' | 'stay';
  /** Set once block production stopped. */
  halted: { kind: string; height: number; message: string } | null;
}

/**
 * The node's queries. `query` answers an ABCI query path at `height` (0 = latest; checked with
 * heightFor) and throws ChainError; an unknown path fails before the height is looked at.
 */
export interface QueryService extends AbciQuerySource {
  /** Protobuf services for gRPC: service name → method name → handler. */
  readonly services: Readonly<Record<string, Readonly<Record<string, ProtoHandler>>>>;
}

type JsonHandler = (request: Record<string, unknown>) => Promise<unknown>;

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
  /** The genesis the chain started from (its validator: GetLatestValidatorSet, GetValidatorSetByHeight). */
  genesis: Genesis;
  /** The validators GetLatestValidatorSet and GetValidatorSetByHeight list (default: the genesis validator alone). */
  validatorSet?: ValidatorSet;
}

type ProtoServices = Record<string, Record<string, ProtoHandler>>;

/** How the chain's genesis shapes the queries: the validators' keys, and gov v1 left out on a v1beta1-only chain. */
interface GenesisShape {
  staking: StakingSource;
  v1beta1Only: boolean;
}

/** The queries answered from `reader`: the module stores as committed at one height. */
function stateQueries(reader: () => KVReader, node: () => NodeState, shape: GenesisShape) {
  const gov = () => prefixed(reader(), govStorePrefix);
  const views = createGovViews(reader);
  const json: Record<string, JsonHandler> = {
    '/sim/gov/proposal': async (request) => {
      const id = String(request.proposal_id ?? '');
      return { proposal: await views.proposal({ proposalId: /^\d+$/.test(id) ? BigInt(id) : 0n }) };
    },
    '/sim/gov/proposals': async () => ({ proposals: await allProposals(gov()) }),
    '/sim/gov/params': async () => ({ params: await getParams(gov()) }),
    '/sim/stores': async () => ({
      stores: (await mountedStores(reader())).map((s) => ({ name: s.name, added_height: String(s.addedHeight) })),
      store_upgrades: Object.fromEntries(Object.entries(await appliedStoreUpgrades(reader())).map(([name, height]) => [name, String(height)])),
    }),
    '/sim/node': async () => node(),
    '/sim/auth/account': async (request) => {
      const address = String(request.address ?? '');
      return { address, sequence: (await getSequence(reader(), address)).toString() };
    },
    ...govGatewayQueries(reader),
    ...stakingGatewayQueries(reader, shape.staking),
  };
  const proto: ProtoServices = { [upgradeQueryService]: upgradeQueries(reader), ...govQueries(reader), ...stakingQueries(reader, shape.staking) };
  if (shape.v1beta1Only) {
    delete proto[govV1Service];
    for (const path of Object.keys(json)) if (path.startsWith('/sim/gov/v1/')) delete json[path];
  }
  return { proto, json };
}

export function createQueryService(options: QueryServiceOptions): QueryService {
  const { reader: latest, node, heights, readerAt, identity, genesis } = options;
  const shape: GenesisShape = {
    staking: { identities: genesisIdentities(genesis), genesisTime: genesis.genesis_time },
    v1beta1Only: genesis.app_state.gov.params.v1beta1_only === true,
  };
  const atLatest = stateQueries(latest, node, shape);
  const services: ProtoServices = {
    ...atLatest.proto,
    // Blocks come from the block store whatever the height asked (CometBFT answers them, not the state).
    [tendermintService]: {
      ...tendermintQueries(latest, identity),
      ...validatorSetQueries({ set: options.validatorSet ?? validatorSet(genesis, 0n), latest: () => heights().latest }),
      ABCIQuery: abciQueryMethod(() => service, identity.version),
    },
  };
  const protoMethod = (path: string) => /^\/([\w.]+)\/(\w+)$/.exec(path);
  const knows = (path: string) => {
    const match = protoMethod(path);
    if (match !== null && services[match[1] as string]?.[match[2] as string] !== undefined) return true;
    return Object.hasOwn(atLatest.json, path);
  };
  const heightFor = (requested: number) => queryHeight(requested, heights());
  const stateAt = (height: number): KVReader | undefined => {
    const { latest: last, earliest } = heights();
    if (height === last) return latest();
    return earliest !== undefined && height >= earliest && height < last ? readerAt(height) : undefined;
  };
  const service: QueryService = {
    services,
    knows,
    heightFor,
    heights,
    stateAt,
    async query(path, data, requested = 0) {
      if (!knows(path)) throw unknownQueryPath();
      const height = heightFor(requested);
      const at = height === heights().latest ? atLatest : stateQueries(() => readerAt(height), node, shape);
      const match = protoMethod(path);
      if (match !== null) {
        const [service, method] = [match[1] as string, match[2] as string];
        const handler = at.proto[service]?.[method] ?? services[service]?.[method];
        if (handler !== undefined) {
          try {
            return await handler(data);
          } catch (error) {
            throw grpcRoutedError(error);
          }
        }
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
      try {
        return Buffer.from(JSON.stringify(await handler(request)));
      } catch (error) {
        throw grpcRoutedError(error);
      }
    },
  };
  return service;
}
