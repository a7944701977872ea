/**
 * Sending a transaction from the CLI as the SDK's client does: the common tx flags, the message signed
 * by `--from` with the account's sequence read from the node, broadcast in `commit` or `sync` mode, and
 * the TxResponse printed (exit code 1 when the chain refused it).
 */
import { defaultGasLimit, encodeTx, simSigned } from '../chain/tx.js';
import type { AnyMsg } from '../core/msg.js';
import { parseCoins } from '../util/coins.js';
import { ChainError } from '../util/errors.js';
import { type FlagKind, UsageProblem } from './args.js';
import { queryJson, resolveNode, rpcCall } from './client.js';
import type { CliIO } from './io.js';
import { outputFormat, render } from './output.js';

export const txFlags: Readonly<Record<string, FlagKind>> = {
  home: 'string',
  node: 'string',
  output: 'string',
  from: 'string',
  'chain-id': 'string',
  'broadcast-mode': 'string',
  yes: 'boolean',
  gas: 'string',
  fees: 'string',
  'keyring-backend': 'string',
  log_level: 'string',
  help: 'boolean',
};

export const aliases = { y: 'yes', o: 'output' };

interface CheckJson {
  code: number;
  log: string;
  codespace: string;
}

interface CommitJson {
  check_tx: CheckJson;
  tx_result: CheckJson & { events: unknown[] };
  hash: string;
  height: string;
}

/** What the CLI prints for a transaction (the SDK's TxResponse, trimmed). */
export interface TxResponse {
  height: string;
  txhash: string;
  codespace: string;
  code: number;
  raw_log: string;
  events: unknown[];
}

export interface TxContext {
  io: CliIO;
  name: string;
}

function gasFlag(text: string | undefined): bigint {
  if (text === undefined || text === '') return defaultGasLimit;
  if (!/^\d+$/.test(text)) throw new UsageProblem(`invalid --gas ${JSON.stringify(text)}: expected a number of gas units`);
  return BigInt(text);
}

/**
 * Builds the transaction of `messages` signed by `from` (with the account's sequence, read from the
 * node), sends it and prints the TxResponse; exit code 1 when the chain refused it.
 */
export async function broadcast(ctx: TxContext, strings: Record<string, string>, from: string, messages: AnyMsg[]): Promise<number> {
  const node = await resolveNode(strings, ctx.name);
  const mode = strings['broadcast-mode'] ?? 'commit';
  if (mode !== 'commit' && mode !== 'sync') throw new UsageProblem(`invalid --broadcast-mode ${JSON.stringify(mode)}: expected commit or sync`);
  const gasLimit = gasFlag(strings.gas);
  const fee = parseCoinsFlag(strings.fees ?? '');
  const { sequence } = await queryJson<{ sequence: string }>(node, '/sim/auth/account', { address: from });
  const bytes = encodeTx(simSigned(from, messages, { sequence: BigInt(sequence), gasLimit, fee }));
  const params = { tx: bytes.toString('base64') };
  let response: TxResponse;
  if (mode === 'sync') {
    const sync = (await rpcCall(node, 'broadcast_tx_sync', params)) as CheckJson & { hash: string };
    response = { height: '0', txhash: sync.hash, codespace: sync.codespace, code: sync.code, raw_log: sync.log, events: [] };
  } else {
    const commit = (await rpcCall(node, 'broadcast_tx_commit', params)) as CommitJson;
    const outcome = commit.check_tx.code !== 0 ? { ...commit.check_tx, events: [] } : commit.tx_result;
    response = {
      height: commit.check_tx.code !== 0 ? '0' : commit.height,
      txhash: commit.hash,
      codespace: outcome.codespace,
      code: outcome.code,
      raw_log: outcome.log,
      events: outcome.events,
    };
  }
  await ctx.io.out(render(response, outputFormat(strings.output, 'json')));
  if (response.code !== 0) {
    ctx.io.err(`Error: ${response.raw_log}\n`);
    return 1;
  }
  return 0;
}

export function parseCoinsFlag(text: string) {
  try {
    return parseCoins(text);
  } catch (error) {
    if (error instanceof ChainError) throw new UsageProblem(error.message);
    throw error;
  }
}
