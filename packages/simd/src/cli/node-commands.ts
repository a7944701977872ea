/** `<bin> init`, `<bin> start`, `<bin> status`, `<bin> version`, `<bin> keys`. */
import { defaultGenesis, simValidatorPubKey, writeGenesis } from '../chain/genesis.js';
import { genesisKeyNames } from '../core/accounts.js';
import { resolvePruning } from '../node/app-config.js';
import { initAppListenConfig, resolveListenConfig } from '../node/listen-config.js';
import { initNodeConfig, loadOrGenValidatorKey } from '../node/node-config.js';
import { readPeerPublicKey } from '../node/peer-key.js';
import type { NetworkOptions, NodeOptions } from '../node/run-node.js';
import { ensureSignState } from '../node/sign-state.js';
import { parseDuration } from '../util/duration.js';
import { SimError } from '../util/errors.js';
import { createSimLogger, parseLogLevel } from '../util/log.js';
import type { SimVersion } from '../versions.js';
import { parseArgs, parseHeight, UsageProblem } from './args.js';
import { defaultHome, resolveNode, rpcCall } from './client.js';
import type { CliIO } from './io.js';
import { keyList } from './keys.js';
import { outputFormat, render } from './output.js';

export interface NodeCommandContext {
  io: CliIO;
  name: string;
  version: SimVersion;
}

function wrapDuration(text: string, flag: string): string {
  try {
    parseDuration(text, flag);
    return text;
  } catch (error) {
    throw new UsageProblem((error as Error).message);
  }
}

/** `--sim-validators alice=300000,bob=200000`: other keyring names, each once, with a positive power. */
function simValidators(text: string): Array<{ name: string; power: string }> {
  const others = genesisKeyNames.filter((name) => name !== 'validator');
  const seen = new Set<string>();
  return text.split(',').map((entry) => {
    const match = /^\s*([a-z]+)=(\d+)\s*$/.exec(entry);
    const name = match?.[1] ?? '';
    const power = match?.[2] ?? '';
    if (!(others as readonly string[]).includes(name) || !/^[1-9]\d{0,14}$/.test(power) || seen.has(name)) {
      throw new UsageProblem(
        `invalid --sim-validators entry ${JSON.stringify(entry)}: expected <name>=<power>, each name once`,
        `name one of ${others.join(', ')} (keys of the simulated keyring) with a voting power from 1 to 999999999999999, e.g. --sim-validators alice=300000,bob=200000`,
      );
    }
    seen.add(name);
    return { name, power };
  });
}

export async function init(ctx: NodeCommandContext, argv: readonly string[]): Promise<number> {
  const { strings, booleans, positionals } = parseArgs(argv, {
    flags: {
      home: 'string',
      'chain-id': 'string',
      'voting-period': 'string',
      'deposit-period': 'string',
      'min-deposit': 'string',
      'auto-vote': 'boolean',
      'sim-validators': 'string',
      'sim-gov-v1beta1-only': 'boolean',
      'sim-full-node': 'boolean',
      overwrite: 'boolean',
      log_level: 'string',
      help: 'boolean',
    },
  });
  if (positionals.length > 1) throw new UsageProblem('usage: init [moniker] --home <dir> [--chain-id] [--voting-period] [--deposit-period] [--auto-vote]');
  const home = strings.home ?? defaultHome(ctx.name);
  // CometBFT's init always writes the home's key; a full node's is simply not the validator's.
  const homeKey = await loadOrGenValidatorKey(home);
  const chainId = strings['chain-id'] ?? 'sim-1';
  const genesis = defaultGenesis({
    consensusPubKey: booleans['sim-full-node'] ? simValidatorPubKey(chainId, 'validator') : homeKey,
    chainId,
    votingPeriod: strings['voting-period'] === undefined ? undefined : wrapDuration(strings['voting-period'], '--voting-period'),
    depositPeriod: strings['deposit-period'] === undefined ? undefined : wrapDuration(strings['deposit-period'], '--deposit-period'),
    minDeposit: strings['min-deposit'],
    autoVote: booleans['auto-vote'],
    simValidators: strings['sim-validators'] === undefined ? undefined : simValidators(strings['sim-validators']),
    v1beta1Only: booleans['sim-gov-v1beta1-only'],
  });
  const file = await writeGenesis(home, genesis, booleans.overwrite);
  const moniker = positionals[0] ?? ctx.name;
  await initNodeConfig(home, moniker);
  await initAppListenConfig(home);
  await ensureSignState(home);
  await ctx.io.out(`${JSON.stringify({ moniker, chain_id: genesis.chain_id, genesis_file: file, gov: genesis.app_state.gov.params })}\n`);
  return 0;
}

/** The flags of `start`, which `in-place-testnet` takes too (the SDK adds the same start flags to both). */
export const startFlags = {
  home: 'string',
  'block-time': 'string',
  'sim-block-time-jitter': 'string',
  'rpc.laddr': 'string',
  'grpc.enable': 'boolean',
  'grpc.address': 'string',
  'api.enable': 'boolean',
  'api.address': 'string',
  'halt-mode': 'string',
  'halt-height': 'string',
  'unsafe-skip-upgrades': 'list',
  pruning: 'string',
  'pruning-keep-recent': 'string',
  'pruning-interval': 'string',
  'sim-peers-power': 'string',
  'sim-peers-back-after': 'string',
  'sim-not-signing': 'boolean',
  'sim-peer-key': 'string',
  'sim-peer-key-from': 'string',
  'sim-peer-key-until': 'string',
  log_level: 'string',
  help: 'boolean',
} as const;

/** `--sim-peers-power`: 0 (no peers) or at least 10, so that each of the 10 peers holds some power. */
function peersPower(text: string | undefined): bigint {
  if (text === undefined) return 0n;
  const power = /^\d+$/.test(text.trim()) ? BigInt(text.trim()) : -1n;
  if (power < 0n || (power > 0n && power < 10n) || power >= 2n ** 60n) {
    throw new UsageProblem(`invalid --sim-peers-power ${JSON.stringify(text)}: expected 0 or a voting power of at least 10 (shared by the 10 peers)`);
  }
  return power;
}

/** `--sim-peer-key` and its window (`--sim-peer-key-from`, default 1; `--sim-peer-key-until`, default none), checked. */
async function peerKey(strings: Readonly<Record<string, string | undefined>>, peersPower: bigint): Promise<NetworkOptions['peerKey']> {
  const file = strings['sim-peer-key'];
  const fromText = strings['sim-peer-key-from'];
  const untilText = strings['sim-peer-key-until'];
  if (file === undefined) {
    if (fromText !== undefined || untilText !== undefined) throw new UsageProblem('--sim-peer-key-from and --sim-peer-key-until need --sim-peer-key');
    return undefined;
  }
  if (peersPower === 0n) throw new UsageProblem('--sim-peer-key needs --sim-peers-power: the key signs as one of the simulated peers');
  const from = fromText === undefined ? 1 : parseHeight(fromText, '--sim-peer-key-from');
  const until = untilText === undefined ? undefined : parseHeight(untilText, '--sim-peer-key-until');
  if (from < 1 || (until !== undefined && until < 0)) throw new UsageProblem('--sim-peer-key-from must be 1 or more, --sim-peer-key-until 0 or more');
  return { pubKey: await readPeerPublicKey(file), window: { from, until } };
}

/** The node's options from the start flags, checked before anything runs. */
export async function nodeOptionsFrom(
  ctx: NodeCommandContext,
  flags: {
    strings: Readonly<Record<string, string | undefined>>;
    booleans: Readonly<Record<string, boolean | undefined>>;
    lists: Readonly<Record<string, string[] | undefined>>;
  },
): Promise<NodeOptions> {
  const { strings, booleans, lists } = flags;
  const haltMode = strings['halt-mode'] ?? 'exit';
  if (haltMode !== 'exit' && haltMode !== 'stay') throw new UsageProblem(`invalid --halt-mode ${JSON.stringify(haltMode)}: expected exit or stay`);
  const level = parseLogLevel(strings['log_level'] ?? 'info');
  if (level === undefined) throw new UsageProblem(`invalid --log_level ${JSON.stringify(strings['log_level'])}: expected debug, info or error`);
  const blockTimeMs = parseDuration(wrapDuration(strings['block-time'] ?? '1s', '--block-time'));
  const jitterText = strings['sim-block-time-jitter'] ?? '0';
  const blockTimeJitter = /^(0(\.\d+)?|\.\d+)$/.test(jitterText.trim()) ? Number(jitterText) : Number.NaN;
  if (!(blockTimeJitter >= 0 && blockTimeJitter < 1))
    throw new UsageProblem(`invalid --sim-block-time-jitter ${JSON.stringify(jitterText)}: expected a fraction from 0 to below 1`);
  const skipHeights = (lists['unsafe-skip-upgrades'] ?? []).map((h) => parseHeight(h, '--unsafe-skip-upgrades height'));
  const home = strings.home ?? defaultHome(ctx.name);
  const pruning = await resolvePruning(home, {
    pruning: strings.pruning,
    'pruning-keep-recent': strings['pruning-keep-recent'],
    'pruning-interval': strings['pruning-interval'],
  });
  // Flags over config/config.toml and config/app.toml over the SDK's defaults, as a Cosmos node.
  const listen = await resolveListenConfig(home, { strings, booleans });
  const power = peersPower(strings['sim-peers-power']);
  return {
    home,
    name: ctx.name,
    version: ctx.version,
    blockTimeMs,
    blockTimeJitter,
    rpcLaddr: listen.rpcLaddr,
    grpcAddress: listen.grpc.enable ? listen.grpc.address : undefined,
    apiAddress: listen.api.enable ? listen.api.address : undefined,
    haltMode: haltMode,
    skipHeights,
    haltHeight: strings['halt-height'] === undefined ? 0 : parseHeight(strings['halt-height'], '--halt-height'),
    pruning,
    network: {
      peersPower: power,
      peersBackAfterMs: parseDuration(wrapDuration(strings['sim-peers-back-after'] ?? '0s', '--sim-peers-back-after')),
      notSigning: booleans['sim-not-signing'] ?? false,
      peerKey: await peerKey(strings, power),
    },
    log: createSimLogger({ level }),
  };
}

export async function start(ctx: NodeCommandContext, argv: readonly string[]): Promise<number> {
  const { strings, booleans, lists, positionals } = parseArgs(argv, { flags: startFlags });
  if (positionals.length > 0) throw new UsageProblem(`start takes no arguments, got ${JSON.stringify(positionals.join(' '))}`);
  const options = await nodeOptionsFrom(ctx, { strings, booleans, lists });
  // Loaded here, not above: the node's servers (gRPC, protobuf, websockets, the store) take about half a
  // CPU-second to load, and every other command (init, keys, status, version) never needs them.
  const { runNode } = await import('../node/run-node.js');
  return runNode(options);
}

interface RpcStatus {
  node_info: unknown;
  sync_info: unknown;
  validator_info: { address: string; pub_key: unknown; voting_power: string };
}

/**
 * The SDK's client/rpc/status.go: the RPC status re-encoded with the legacy Amino JSON codec into
 * a struct without JSON tags, so the keys are Go's field names, the validator address (a plain
 * byte slice there) is base64, and 64-bit integers are strings. One compact line on stdout.
 */
export async function status(ctx: NodeCommandContext, argv: readonly string[]): Promise<number> {
  const { strings } = parseArgs(argv, { flags: { home: 'string', node: 'string', help: 'boolean' }, aliases: { n: 'node' } });
  const result = (await rpcCall(await resolveNode(strings, ctx.name), 'status')) as RpcStatus;
  const validator = result.validator_info;
  const out = {
    NodeInfo: result.node_info,
    SyncInfo: result.sync_info,
    ValidatorInfo: {
      Address: Buffer.from(validator.address, 'hex').toString('base64'),
      PubKey: validator.pub_key,
      VotingPower: validator.voting_power,
    },
  };
  await ctx.io.out(`${JSON.stringify(out)}\n`);
  return 0;
}

export async function version(ctx: NodeCommandContext, argv: readonly string[]): Promise<number> {
  const { strings, booleans } = parseArgs(argv, { flags: { long: 'boolean', output: 'string', help: 'boolean' }, aliases: { o: 'output' } });
  if (!booleans.long) {
    await ctx.io.out(`${ctx.version.name}\n`);
    return 0;
  }
  const info = {
    name: 'sim',
    server_name: ctx.name,
    version: ctx.version.name,
    commit: '',
    build_tags: '',
    go: `node ${process.version}`,
    upgrade_handlers: Object.keys(ctx.version.handlers),
    store_upgrades: Object.keys(ctx.version.storeUpgrades),
    module_versions: ctx.version.modules,
  };
  await ctx.io.out(render(info, outputFormat(strings.output, 'text')));
  return 0;
}

export async function keys(ctx: NodeCommandContext, argv: readonly string[]): Promise<number> {
  const { strings, booleans, positionals } = parseArgs(argv, {
    flags: { address: 'boolean', output: 'string', home: 'string', 'keyring-backend': 'string', help: 'boolean' },
    aliases: { a: 'address', o: 'output' },
  });
  const [command, name] = positionals;
  const all = keyList();
  if (command === 'list') {
    await ctx.io.out(render(all, outputFormat(strings.output, 'text')));
    return 0;
  }
  if (command === 'show' && name !== undefined) {
    const key = all.find((k) => k.name === name || k.address === name);
    if (key === undefined)
      throw new SimError('SIM_NO_KEY', `${name}: key not found`, { hint: `the simulated keyring has ${all.map((k) => k.name).join(', ')}` });
    await ctx.io.out(booleans.address ? `${key.address}\n` : render(key, outputFormat(strings.output, 'text')));
    return 0;
  }
  throw new UsageProblem('usage: keys list | keys show <name> [-a]');
}
