/**
 * The REST API server (`--api.address`), grpc-gateway style: the upgrade queries under
 * `/cosmos/upgrade/v1beta1/`, the gov queries under `/cosmos/gov/v1/` and `/cosmos/gov/v1beta1/`
 * (rest-gov.ts), the staking validators (rest-staking.ts), blocks, validator sets, node info and `abci_query` under `/cosmos/base/tendermint/v1beta1/`.
 * Answers are the protobuf responses rendered as JSON; errors are the gRPC status, `{"code": <gRPC code>, "message": …, "details": []}`, with
 * the HTTP status the gateway derives from the code; a path or method without a route is
 * `{"code": 12, "message": "Not Implemented"}` (501). As the SDK's gateway, the request header
 * `x-cosmos-block-height` selects the height and the answer carries `Grpc-Metadata-X-Cosmos-Block-Height`.
 */
import type http from 'node:http';

import {
  ABCIQueryRequest,
  GetBlockByHeightRequest,
  GetLatestValidatorSetRequest,
  GetValidatorSetByHeightRequest,
} from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import { QueryAppliedPlanRequest, QueryModuleVersionsRequest, QueryUpgradedConsensusStateRequest } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { tendermintService } from '../chain/queries.js';
import { upgradeJson, upgradeQueryService } from '../upgrade/queries.js';
import { ChainError, StatusError } from '../util/errors.js';
import { gatewayJson } from './gateway-json.js';
import { pageRequestParam, pathInt64, queryBool, queryBytes, queryInt64 } from './gateway-params.js';
import { createServer, sendJson } from './http.js';
import { grpcStatusOf, httpStatusFromCode } from './query-errors.js';
import { blockHeightHeader, parseHeightHeader, restBlockHeightHeader } from './query-height.js';
import type { QueryService } from './query-service.js';
import { govRoutes } from './rest-gov.js';
import { stakingRoutes } from './rest-staking.js';

type Route = (match: RegExpExecArray, url: URL, queries: QueryService) => Promise<unknown>;

const upgrade = (method: string) => `/${upgradeQueryService}/${method}`;

/** A tendermint service method's answer in gateway JSON. */
const tendermint = async (queries: QueryService, method: string, request: Uint8Array = new Uint8Array()) =>
  gatewayJson(
    `${tendermintService.slice(0, tendermintService.lastIndexOf('.'))}.${method}Response`,
    await queries.query(`/${tendermintService}/${method}`, request),
  );

const routes: Array<[RegExp, Route]> = [
  [/^\/cosmos\/upgrade\/v1beta1\/current_plan$/, async (_m, _u, q) => upgradeJson.CurrentPlan(await q.query(upgrade('CurrentPlan'), new Uint8Array()))],
  [
    /^\/cosmos\/upgrade\/v1beta1\/applied_plan\/([^/]+)$/,
    async (m, _u, q) => {
      const request = QueryAppliedPlanRequest.encode({ name: decodeURIComponent(m[1] as string) }).finish();
      return upgradeJson.AppliedPlan(await q.query(upgrade('AppliedPlan'), request));
    },
  ],
  [
    /^\/cosmos\/upgrade\/v1beta1\/module_versions$/,
    async (_m, url, q) => {
      const request = QueryModuleVersionsRequest.encode({ moduleName: url.searchParams.get('module_name') ?? '' }).finish();
      return upgradeJson.ModuleVersions(await q.query(upgrade('ModuleVersions'), request));
    },
  ],
  [
    /^\/cosmos\/upgrade\/v1beta1\/upgraded_consensus_state\/([^/]+)$/,
    async (m, _u, q) => {
      const request = QueryUpgradedConsensusStateRequest.encode({ lastHeight: pathInt64(m[1] as string, 'last_height') }).finish();
      return upgradeJson.UpgradedConsensusState(await q.query(upgrade('UpgradedConsensusState'), request));
    },
  ],
  [/^\/cosmos\/upgrade\/v1beta1\/authority$/, async (_m, _u, q) => upgradeJson.Authority(await q.query(upgrade('Authority'), new Uint8Array()))],
  ...govRoutes,
  ...stakingRoutes,
  [
    /^\/cosmos\/base\/tendermint\/v1beta1\/blocks\/(latest|-?\d+)$/,
    async (m, _u, q) => {
      if (m[1] === 'latest') return tendermint(q, 'GetLatestBlock');
      return tendermint(q, 'GetBlockByHeight', GetBlockByHeightRequest.encode({ height: BigInt(m[1] as string) }).finish());
    },
  ],
  [/^\/cosmos\/base\/tendermint\/v1beta1\/node_info$/, async (_m, _u, q) => tendermint(q, 'GetNodeInfo')],
  [/^\/cosmos\/base\/tendermint\/v1beta1\/syncing$/, async (_m, _u, q) => tendermint(q, 'GetSyncing')],
  [
    /^\/cosmos\/base\/tendermint\/v1beta1\/validatorsets\/latest$/,
    async (_m, url, q) => tendermint(q, 'GetLatestValidatorSet', GetLatestValidatorSetRequest.encode({ pagination: pageRequestParam(url) }).finish()),
  ],
  [
    /^\/cosmos\/base\/tendermint\/v1beta1\/validatorsets\/([^/]+)$/,
    async (m, url, q) => {
      const request = { height: pathInt64(m[1] as string, 'height'), pagination: pageRequestParam(url) };
      return tendermint(q, 'GetValidatorSetByHeight', GetValidatorSetByHeightRequest.encode(request).finish());
    },
  ],
  [
    /^\/cosmos\/base\/tendermint\/v1beta1\/abci_query$/,
    async (_m, url, q) => {
      const request = {
        data: queryBytes(url, 'data') ?? new Uint8Array(),
        path: url.searchParams.getAll('path').at(-1) ?? '',
        height: queryInt64(url, 'height') ?? 0n,
        prove: queryBool(url, 'prove') ?? false,
      };
      return tendermint(q, 'ABCIQuery', ABCIQueryRequest.encode(request).finish());
    },
  ],
];

/** grpc-gateway v1's answer to a path or method it has no route for (its ErrUnknownURI). */
const notImplemented = { code: 12, message: 'Not Implemented', details: [] };

/** The queries of one request, all at the height it was answered at. */
function atHeight(queries: QueryService, height: number): QueryService {
  return { ...queries, query: (path, data, at = height) => queries.query(path, data, at) };
}

export function createRestServer(queries: QueryService): http.Server {
  return createServer((req, res) => {
    void (async () => {
      try {
        const url = new URL(req.url ?? '/', 'http://localhost');
        if (req.method !== 'GET') {
          sendJson(res, 501, notImplemented);
          return;
        }
        for (const [pattern, route] of routes) {
          const match = pattern.exec(url.pathname);
          if (match !== null) {
            const asked = req.headersDistinct[blockHeightHeader];
            const height = queries.heightFor(asked?.length === 1 ? parseHeightHeader(asked[0] as string) : 0);
            res.setHeader(restBlockHeightHeader, String(height));
            sendJson(res, 200, await route(match, url, atHeight(queries, height)));
            return;
          }
        }
        sendJson(res, 501, notImplemented);
      } catch (error) {
        // The gateway reaches the handlers through gRPC: the body is the gRPC status.
        const { code, message } =
          error instanceof ChainError || error instanceof StatusError
            ? grpcStatusOf(error)
            : { code: 13, message: error instanceof Error ? error.message : String(error) };
        sendJson(res, httpStatusFromCode(code), { code, message, details: [] });
      }
    })();
  });
}
