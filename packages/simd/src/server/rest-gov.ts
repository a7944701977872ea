/**
 * The REST routes of the gov queries, `/cosmos/gov/v1/…` and `/cosmos/gov/v1beta1/…`, as the SDK's
 * grpc-gateway declares them (query.proto's http options): parameters parsed as the gateway does,
 * answers in its JSON (from the node's `/sim/gov/<version>/<Method>` query paths).
 */
import { statusNumbers } from '../gov/query-views.js';
import { GrpcCode, StatusError } from '../util/errors.js';
import { enumParam, paginationParams, pathUint64 } from './gateway-params.js';
import type { QueryService } from './query-service.js';

type Route = (match: RegExpExecArray, url: URL, queries: QueryService) => Promise<unknown>;

async function ask(queries: QueryService, version: string, method: string, request: Record<string, unknown>): Promise<unknown> {
  // A v1beta1-only chain (before SDK v0.46) has no gov v1 routes: the gateway's answer to a path it does not know.
  if (!queries.knows(`/sim/gov/${version}/${method}`)) throw new StatusError(GrpcCode.unimplemented, 'Not Implemented');
  const answer = await queries.query(`/sim/gov/${version}/${method}`, Buffer.from(JSON.stringify(request)));
  return JSON.parse(Buffer.from(answer).toString('utf8')) as unknown;
}

const id = (m: RegExpExecArray) => pathUint64(m[2] as string, 'proposal_id');
const segment = (text: string) => decodeURIComponent(text);

export const govRoutes: Array<[RegExp, Route]> = [
  [
    /^\/cosmos\/gov\/(v1|v1beta1)\/proposals$/,
    async (m, url, q) =>
      ask(q, m[1] as string, 'Proposals', {
        proposal_status: enumParam(url, 'proposal_status', statusNumbers, `${m[1] as string}.ProposalStatus`),
        voter: url.searchParams.getAll('voter').at(-1),
        depositor: url.searchParams.getAll('depositor').at(-1),
        pagination: paginationParams(url),
      }),
  ],
  [/^\/cosmos\/gov\/(v1|v1beta1)\/proposals\/([^/]+)$/, async (m, _u, q) => ask(q, m[1] as string, 'Proposal', { proposal_id: id(m) })],
  [
    /^\/cosmos\/gov\/(v1|v1beta1)\/proposals\/([^/]+)\/votes$/,
    async (m, url, q) => ask(q, m[1] as string, 'Votes', { proposal_id: id(m), pagination: paginationParams(url) }),
  ],
  [
    /^\/cosmos\/gov\/(v1|v1beta1)\/proposals\/([^/]+)\/votes\/([^/]+)$/,
    async (m, _u, q) => ask(q, m[1] as string, 'Vote', { proposal_id: id(m), voter: segment(m[3] as string) }),
  ],
  [
    /^\/cosmos\/gov\/(v1|v1beta1)\/proposals\/([^/]+)\/deposits$/,
    async (m, url, q) => ask(q, m[1] as string, 'Deposits', { proposal_id: id(m), pagination: paginationParams(url) }),
  ],
  [
    /^\/cosmos\/gov\/(v1|v1beta1)\/proposals\/([^/]+)\/deposits\/([^/]+)$/,
    async (m, _u, q) => ask(q, m[1] as string, 'Deposit', { proposal_id: id(m), depositor: segment(m[3] as string) }),
  ],
  [/^\/cosmos\/gov\/(v1|v1beta1)\/proposals\/([^/]+)\/tally$/, async (m, _u, q) => ask(q, m[1] as string, 'TallyResult', { proposal_id: id(m) })],
  [/^\/cosmos\/gov\/(v1|v1beta1)\/params\/([^/]+)$/, async (m, _u, q) => ask(q, m[1] as string, 'Params', { params_type: segment(m[2] as string) })],
  [/^\/cosmos\/gov\/v1\/constitution$/, async (_m, _u, q) => ask(q, 'v1', 'Constitution', {})],
];
