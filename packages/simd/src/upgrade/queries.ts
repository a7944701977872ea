/**
 * The module's query service `cosmos.upgrade.v1beta1.Query`, on protobuf bytes (the real messages of
 * cosmjs-types). gRPC, ABCI queries over RPC and REST all call these, so the three interfaces agree.
 */
import {
  QueryAppliedPlanRequest,
  QueryAppliedPlanResponse,
  QueryAuthorityResponse,
  QueryCurrentPlanResponse,
  QueryModuleVersionsRequest,
  QueryModuleVersionsResponse,
  QueryUpgradedConsensusStateRequest,
  QueryUpgradedConsensusStateResponse,
} from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { govAddress } from '../core/accounts.js';
import type { ProtoHandler } from '../core/query.js';
import { type KVReader, prefixed } from '../store/kv.js';
import { decodeRequest } from '../util/errors.js';
import { moduleVersionNotFound } from './errors.js';
import { getDoneHeight, getModuleVersions, getPlan } from './keeper.js';
import { storePrefix } from './keys.js';
import { type PlanJson, planJson, planToProto } from './plan.js';

export const upgradeQueryService = 'cosmos.upgrade.v1beta1.Query';

export function upgradeQueries(reader: () => KVReader): Record<string, ProtoHandler> {
  const kv = () => prefixed(reader(), storePrefix);
  return {
    async CurrentPlan() {
      const plan = await getPlan(kv());
      return QueryCurrentPlanResponse.encode(QueryCurrentPlanResponse.fromPartial(plan === undefined ? {} : { plan: planToProto(plan) })).finish();
    },
    async AppliedPlan(request) {
      const { name } = decodeRequest(QueryAppliedPlanRequest, request);
      const height = await getDoneHeight(kv(), name);
      return QueryAppliedPlanResponse.encode({ height: BigInt(height) }).finish();
    },
    // IBC's upgraded consensus states are never stored here: the SDK answers an empty response then.
    async UpgradedConsensusState(request) {
      decodeRequest(QueryUpgradedConsensusStateRequest, request);
      return QueryUpgradedConsensusStateResponse.encode({ upgradedConsensusState: new Uint8Array() }).finish();
    },
    async ModuleVersions(request) {
      const { moduleName } = decodeRequest(QueryModuleVersionsRequest, request);
      const versions = await getModuleVersions(kv());
      let entries = Object.entries(versions);
      if (moduleName !== '') {
        if (!Object.hasOwn(versions, moduleName)) throw moduleVersionNotFound(moduleName);
        entries = entries.filter(([name]) => name === moduleName);
      }
      return QueryModuleVersionsResponse.encode({
        moduleVersions: entries.map(([name, version]) => ({ name, version: BigInt(version) })),
      }).finish();
    },
    async Authority() {
      return QueryAuthorityResponse.encode({ address: govAddress }).finish();
    },
  };
}

/** JSON renderings of the responses (int64 as decimal strings, the Plan of upgrade-module.md §2.1). */
export const upgradeJson = {
  CurrentPlan: (bytes: Uint8Array): { plan: PlanJson | null } => {
    const { plan } = QueryCurrentPlanResponse.decode(bytes);
    return { plan: plan === undefined ? null : planJson(plan) };
  },
  AppliedPlan: (bytes: Uint8Array): { height: string } => ({
    height: QueryAppliedPlanResponse.decode(bytes).height.toString(),
  }),
  ModuleVersions: (bytes: Uint8Array): { module_versions: Array<{ name: string; version: string }> } => ({
    module_versions: QueryModuleVersionsResponse.decode(bytes).moduleVersions.map((m) => ({
      name: m.name,
      version: m.version.toString(),
    })),
  }),
  UpgradedConsensusState: (bytes: Uint8Array): { upgraded_consensus_state: string | null } => {
    const { upgradedConsensusState } = QueryUpgradedConsensusStateResponse.decode(bytes);
    return { upgraded_consensus_state: upgradedConsensusState.length === 0 ? null : Buffer.from(upgradedConsensusState).toString('base64') };
  },
  Authority: (bytes: Uint8Array): { address: string } => ({ address: QueryAuthorityResponse.decode(bytes).address }),
} as const;
