/**
 * The REST routes of the staking queries the node serves, `/cosmos/staking/v1beta1/validators` (status,
 * pagination) and `/cosmos/staking/v1beta1/validators/{validator_addr}`, in grpc-gateway JSON (from the
 * node's `/sim/staking/v1beta1/<Method>` query paths).
 */
import { paginationParams } from './gateway-params.js';
import type { QueryService } from './query-service.js';

type Route = (match: RegExpExecArray, url: URL, queries: QueryService) => Promise<unknown>;

async function ask(queries: QueryService, method: string, request: Record<string, unknown>): Promise<unknown> {
  const answer = await queries.query(`/sim/staking/v1beta1/${method}`, Buffer.from(JSON.stringify(request)));
  return JSON.parse(Buffer.from(answer).toString('utf8')) as unknown;
}

export const stakingRoutes: Array<[RegExp, Route]> = [
  [
    /^\/cosmos\/staking\/v1beta1\/validators$/,
    async (_m, url, q) => ask(q, 'Validators', { status: url.searchParams.getAll('status').at(-1) ?? '', pagination: paginationParams(url) }),
  ],
  [/^\/cosmos\/staking\/v1beta1\/validators\/([^/]+)$/, async (m, _u, q) => ask(q, 'Validator', { validator_addr: decodeURIComponent(m[1] as string) })],
];
