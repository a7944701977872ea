/**
 * The network's view (issue #32): a CometBFT RPC of another node of the chain, from
 * CHAINVISOR_NETWORK_RPC, read through chainvisor's one HTTP client (src/shared/net: the proxies and
 * CAs of the host, as downloads), so that the twin check (src/home/lock/twin-check.ts) can see who
 * signed the newest blocks:
 *
 *   GET /status                           the chain id (`node_info.network`) and the newest height;
 *   GET /validators?height=H&page=P       whether an address is in the validator set;
 *   GET /commit?height=H                  who signed block H (`block_id_flag` 2 or 3), its chain id and time;
 *   GET /commit                           the same of the newest block: what is read while the node runs.
 *
 * Each answer is read bounded, parsed within size and depth bounds and checked against the shape of
 * what is used (src/shared/json.ts). Read-only; one keep-alive connection per RPC is reused between
 * polls. The URL is only ever shown redacted; credentials in it go as Basic authorization.
 */
import type { Readable } from 'node:stream';

import * as v from 'valibot';

import { checkShape, parseJsonValue } from '../shared/json.js';
import { basicAuthorization, type HttpClient, readSome, splitCredentials, TransportTimeout } from '../shared/net/index.js';
import { redactSecretUrl } from '../shared/redact.js';

export interface NetworkStatus {
  /** `node_info.network`. */
  chainId: string;
  latestHeight: number;
  /** The newest block's time, ms since the epoch; NaN when the answer has none. */
  latestTime: number;
}

export interface NetworkCommit {
  height: number;
  /** The header's chain id and time (ms since the epoch; NaN when unreadable). */
  chainId: string;
  time: number;
  /** Validators whose signature is in the commit (`block_id_flag` 2 or 3), upper-case hex. */
  signers: ReadonlySet<string>;
}

export interface NetworkReader {
  /** The RPC's URL as it may be shown: no credentials, no query string. */
  readonly shown: string;
  status(signal?: AbortSignal): Promise<NetworkStatus>;
  /** Whether `address` is in the set at `height` (pages of 100; past 10 pages it is taken to be, so the check runs). */
  inValidatorSet(address: string, height: number, signal?: AbortSignal): Promise<boolean>;
  /** The commit of `height`, or the newest one. */
  commit(height: number | undefined, signal?: AbortSignal): Promise<NetworkCommit>;
}

/** A reading of the network RPC that failed: no answer, an error answer, or not the shape of one. */
export class NetworkRpcError extends Error {
  constructor(
    readonly rpc: string,
    readonly what: string,
    readonly reason: string,
    /** A node that pruned its blocks says the lowest height it still has. */
    readonly lowestHeight?: number,
  ) {
    super(`${rpc} did not give ${what}: ${reason}`);
    this.name = 'NetworkRpcError';
  }
}

/** A commit of a large set is a few hundred KiB; /status and a page of validators far less. */
const maxAnswerBytes = 8 * 1024 * 1024;
const bounds = { maxBytes: maxAnswerBytes, maxDepth: 16 };

const decimal = v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'not a decimal height'));
const statusShape = v.object({
  node_info: v.object({ network: v.string() }),
  sync_info: v.object({ latest_block_height: decimal, latest_block_time: v.optional(v.string()) }),
});
const validatorsShape = v.object({ validators: v.array(v.object({ address: v.string() })), total: decimal });
const commitShape = v.object({
  signed_header: v.object({
    header: v.object({ chain_id: v.string(), time: v.string() }),
    commit: v.object({
      height: decimal,
      signatures: v.array(v.object({ block_id_flag: v.number(), validator_address: v.nullish(v.string()) })),
    }),
  }),
});

const maxValidatorPages = 10;

export function createNetworkReader(options: { url: URL; client: HttpClient }): NetworkReader {
  const { client } = options;
  // The configuration refused credentials that cannot be decoded (config/network-rpc.ts), so this split holds.
  const split = splitCredentials(options.url);
  if (!split.ok) throw new NetworkRpcError(redactSecretUrl(options.url), 'its address', split.problem);
  const base = split.url;
  const authorization = split.credentials === undefined ? undefined : basicAuthorization(split.credentials);
  const shown = redactSecretUrl(options.url);
  const headers: Record<string, string> = { accept: 'application/json', ...(authorization === undefined ? {} : { authorization }) };

  /** The JSON-RPC `result` of GET <base>/<route>?<params>, checked against `shape`. */
  async function get<S extends v.GenericSchema>(route: string, params: Record<string, string>, shape: S, what: string, signal?: AbortSignal) {
    const url = new URL(base.href);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${route}`;
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const fail = (reason: string, lowest?: number) => new NetworkRpcError(shown, what, reason, lowest);
    let text: string;
    let statusCode: number;
    try {
      const response = await client.request(url, { headers, signal });
      statusCode = response.statusCode;
      text = await readText(response.body, maxAnswerBytes);
    } catch (error) {
      throw fail(signal?.aborted ? 'no answer in time' : describeFailure(error));
    }
    const raw = parseJsonValue(text, bounds);
    if (!raw.ok) throw fail(statusCode === 200 ? `the answer is not CometBFT's: ${raw.reason}` : `HTTP ${statusCode}`);
    const envelope = raw.value as { error?: { message?: unknown; data?: unknown }; result?: unknown } | null;
    if (envelope?.error !== undefined && envelope.error !== null) {
      const said = String(envelope.error.data ?? envelope.error.message ?? 'an error').slice(0, 300);
      const lowest = /lowest height is (\d+)/.exec(said)?.[1];
      throw fail(`it answered: ${said}`, lowest === undefined ? undefined : Number(lowest));
    }
    if (statusCode !== 200) throw fail(`HTTP ${statusCode}`);
    const checked = checkShape(envelope?.result, shape);
    if (!checked.ok) throw fail(`the answer is not CometBFT's (${checked.reason})`);
    return checked.value;
  }

  return {
    shown,
    async status(signal) {
      const r = await get('status', {}, statusShape, 'its status', signal);
      return {
        chainId: r.node_info.network,
        latestHeight: Number(r.sync_info.latest_block_height),
        latestTime: r.sync_info.latest_block_time === undefined ? Number.NaN : Date.parse(r.sync_info.latest_block_time),
      };
    },
    async inValidatorSet(address, height, signal) {
      for (let page = 1; page <= maxValidatorPages; page++) {
        const params = { height: String(height), page: String(page), per_page: '100' };
        const r = await get('validators', params, validatorsShape, `the validator set at height ${height}`, signal);
        if (r.validators.some((entry) => entry.address.toUpperCase() === address)) return true;
        if (r.validators.length === 0 || page * 100 >= Number(r.total)) return false;
      }
      return true;
    },
    async commit(height, signal) {
      const params: Record<string, string> = height === undefined ? {} : { height: String(height) };
      const r = await get('commit', params, commitShape, height === undefined ? 'its newest commit' : `the commit of block ${height}`, signal);
      const signers = new Set<string>();
      for (const s of r.signed_header.commit.signatures) {
        if ((s.block_id_flag === 2 || s.block_id_flag === 3) && typeof s.validator_address === 'string') signers.add(s.validator_address.toUpperCase());
      }
      const { chain_id: chainId, time } = r.signed_header.header;
      return { height: Number(r.signed_header.commit.height), chainId, time: Date.parse(time), signers };
    },
  };
}

/** The body as text, refused past `maxBytes` (read no further: the rest is never read). */
async function readText(body: Readable, maxBytes: number): Promise<string> {
  const read = await readSome(body, maxBytes + 1);
  if (read.length > maxBytes) throw new Error(`the answer is larger than ${maxBytes} bytes`);
  return read.toString('utf8');
}

/** A transport failure in a few words, with its code: `connect ECONNREFUSED 127.0.0.1:26657 (ECONNREFUSED)`. */
function describeFailure(error: unknown): string {
  // The client's own timeout names the download setting; here the limit is CHAINVISOR_TWIN_TIMEOUT.
  if (error instanceof TransportTimeout) return `no answer within ${error.limitMs} ms (${error.phase})`;
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
