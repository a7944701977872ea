/**
 * The network's view (issue #32): a CometBFT RPC of another node of the chain, from
 * CHAINVISOR_NETWORK_RPC, read through the one JSON-RPC client (json-rpc.ts) on chainvisor's HTTP
 * client, so that the twin check (src/guard/twin-*.ts) can see who signed the newest blocks. Read-only; the
 * URL is only ever shown redacted.
 * Why, and the rest of its rules: docs/design/chain.md#chainnetworkts.
 */
import type * as v from 'valibot';

import { shownText } from '../shared/json.js';
import type { HttpClient } from '../shared/net/index.js';
import { redactSecretUrl } from '../shared/redact.js';
import { networkCommitAnswer, networkStatusAnswer, networkValidatorsAnswer } from './answers.js';
import { createJsonRpcClient, maxAnswerContainers, networkTransport, RpcFailure, type RpcParams, type RpcProblem } from './json-rpc.js';

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
  /** The commit of `height` (an answer of another height is a NetworkRpcError), or the newest one. */
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
/**
 * Values in one answer: a commit of CometBFT's largest set (10 000 signatures of 4 fields) has about
 * 50 000. 8 MiB of `[0,0,…]` is one array of 4 million, which parsed took `run` past 250 MB (issue #44).
 */
const maxAnswerEntries = 200_000;
const bounds = { maxBytes: maxAnswerBytes, maxDepth: 16, maxContainers: maxAnswerContainers, maxEntries: maxAnswerEntries };

const maxValidatorPages = 10;

/** `timeoutMs` (CHAINVISOR_TWIN_TIMEOUT): the deadline of each answer, its whole body included. */
export function createNetworkReader(options: { url: URL; client: HttpClient; timeoutMs: number }): NetworkReader {
  // The configuration refused credentials that cannot be decoded (config/network-rpc.ts), so this split holds.
  const made = networkTransport(options);
  const shown = redactSecretUrl(options.url);
  if (!made.ok) throw new NetworkRpcError(shown, 'its address', made.problem);
  const rpc = createJsonRpcClient(made.transport, bounds);

  /** The JSON-RPC `result` of GET <url>/<route>?<params>, checked against `answer`; else a NetworkRpcError. */
  async function get<S extends v.GenericSchema>(route: string, params: RpcParams, answer: S, what: string, signal?: AbortSignal) {
    try {
      return await rpc.call(route, answer, { params, ...(signal === undefined ? {} : { signal }) });
    } catch (error) {
      if (!(error instanceof RpcFailure)) throw error;
      const { reason, lowest } = reasonOf(error.problem);
      throw new NetworkRpcError(shown, what, reason, lowest);
    }
  }

  return {
    shown,
    async status(signal) {
      const r = await get('status', {}, networkStatusAnswer, 'its status', signal);
      return {
        chainId: r.node_info.network,
        latestHeight: r.sync_info.latest_block_height,
        latestTime: r.sync_info.latest_block_time === undefined ? Number.NaN : Date.parse(r.sync_info.latest_block_time),
      };
    },
    async inValidatorSet(address, height, signal) {
      for (let page = 1; page <= maxValidatorPages; page++) {
        const params = { height: String(height), page: String(page), per_page: '100' };
        const r = await get('validators', params, networkValidatorsAnswer, `the validator set at height ${height}`, signal);
        if (r.validators.some((entry) => entry.address.toUpperCase() === address)) return true;
        if (r.validators.length === 0 || page * 100 >= r.total) return false;
      }
      return true;
    },
    async commit(height, signal) {
      const params: Record<string, string> = height === undefined ? {} : { height: String(height) };
      const what = height === undefined ? 'its newest commit' : `the commit of block ${height}`;
      const r = await get('commit', params, networkCommitAnswer, what, signal);
      // An answer to another question says nothing about this one (a false twin at a height never asked).
      if (height !== undefined && r.signed_header.commit.height !== height)
        throw new NetworkRpcError(shown, what, `it answered with the commit of block ${r.signed_header.commit.height}`);
      const signers = new Set<string>();
      for (const s of r.signed_header.commit.signatures) {
        if ((s.block_id_flag === 2 || s.block_id_flag === 3) && typeof s.validator_address === 'string') signers.add(s.validator_address.toUpperCase());
      }
      const { chain_id: chainId, time } = r.signed_header.header;
      return { height: r.signed_header.commit.height, chainId, time: Date.parse(time), signers };
    },
  };
}

/** A failed reading in the twin check's words; a node that pruned the height says the lowest it keeps. */
function reasonOf(problem: RpcProblem): { reason: string; lowest?: number } {
  switch (problem.kind) {
    case 'unreachable':
      return { reason: problem.cause.message };
    case 'too-large':
      return { reason: `the answer is larger than ${problem.maxBytes} bytes` };
    case 'error': {
      const lowest = /lowest height is (\d+)/.exec(problem.said ?? '')?.[1];
      return { reason: `it answered: ${shownText(problem.said ?? 'an error', 300)}`, ...(lowest === undefined ? {} : { lowest: Number(lowest) }) };
    }
    case 'http':
      return { reason: `HTTP ${problem.statusCode}` };
    case 'not-json':
      return { reason: `the answer is not CometBFT's: ${problem.reason}` };
    case 'no-result':
      return { reason: "the answer is not CometBFT's (it has no result)" };
    case 'not-rpc':
    case 'shape':
      return { reason: `the answer is not CometBFT's (${problem.reason})` };
  }
}
