/**
 * `<bin> query upgrade plan|applied <name>|module_versions [module]|authority` (upgrade-module.md §4.3),
 * `<bin> query gov proposal <id>|proposals|params` and `<bin> query stores`. Upgrade queries go
 * through the protobuf service, like a real CLI; `applied` prints the block record of upgrade-module.md §2.4
 * (always JSON, as the SDK does).
 */
import { QueryAppliedPlanRequest, QueryModuleVersionsRequest } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { upgradeJson, upgradeQueryService } from '../upgrade/queries.js';
import { SimError } from '../util/errors.js';
import { type FlagKind, parseArgs, parseHeight, UsageProblem } from './args.js';
import { abciQuery, queryJson, resolveNode, rpcCall } from './client.js';
import type { CliIO } from './io.js';
import { outputFormat, render } from './output.js';
import { positionalUint64 } from './positional-uint.js';

const queryFlags: Readonly<Record<string, FlagKind>> = {
  home: 'string',
  node: 'string',
  output: 'string',
  height: 'string',
  'chain-id': 'string',
  log_level: 'string',
  help: 'boolean',
};

interface QueryContext {
  io: CliIO;
  name: string;
  /** `--height`: the state to query (0 = latest). */
  height?: number;
}

type QueryCommand = (ctx: QueryContext, positionals: string[], node: string) => Promise<unknown>;

const upgrade = (method: string) => `/${upgradeQueryService}/${method}`;

function arity(positionals: readonly string[], min: number, max: number, usage: string): void {
  if (positionals.length < min || positionals.length > max) throw new UsageProblem(`usage: ${usage}`);
}

const upgradeCommands: Record<string, QueryCommand> = {
  async plan(ctx, positionals, node) {
    arity(positionals, 0, 0, 'query upgrade plan');
    const { plan } = upgradeJson.CurrentPlan(await abciQuery(node, upgrade('CurrentPlan'), undefined, ctx.height));
    if (plan === null) throw new SimError('SIM_NO_PLAN', 'no upgrade scheduled');
    return plan;
  },
  async applied(ctx, positionals, node) {
    arity(positionals, 1, 1, 'query upgrade applied <upgrade-name>');
    const name = positionals[0] as string;
    const { height } = upgradeJson.AppliedPlan(await abciQuery(node, upgrade('AppliedPlan'), QueryAppliedPlanRequest.encode({ name }).finish(), ctx.height));
    // The SDK's CLI (x/upgrade/client/cli/query.go) answers a plan never applied with this error, exit 1.
    if (height === '0') throw new SimError('SIM_NOT_APPLIED', 'no upgrade found');
    const chain = (await rpcCall(node, 'blockchain', { minHeight: height, maxHeight: height })) as { block_metas: unknown[] };
    if (chain.block_metas.length === 0) throw new SimError('SIM_NO_HEADER', `no headers returned for height ${height}`);
    return { json: chain.block_metas[0] };
  },
  async module_versions(ctx, positionals, node) {
    arity(positionals, 0, 1, 'query upgrade module_versions [module-name]');
    const request = QueryModuleVersionsRequest.encode({ moduleName: positionals[0] ?? '' }).finish();
    return upgradeJson.ModuleVersions(await abciQuery(node, upgrade('ModuleVersions'), request, ctx.height));
  },
  async authority(ctx, positionals, node) {
    arity(positionals, 0, 0, 'query upgrade authority');
    return upgradeJson.Authority(await abciQuery(node, upgrade('Authority'), undefined, ctx.height));
  },
};

const govCommands: Record<string, QueryCommand> = {
  async proposal(ctx, positionals, node) {
    arity(positionals, 1, 1, 'query gov proposal <proposal-id>');
    const id = positionalUint64(positionals, 0);
    return (await queryJson<{ proposal: unknown }>(node, '/sim/gov/proposal', { proposal_id: id.toString() }, ctx.height)).proposal;
  },
  async proposals(ctx, positionals, node) {
    arity(positionals, 0, 0, 'query gov proposals');
    return queryJson(node, '/sim/gov/proposals', {}, ctx.height);
  },
  async params(ctx, positionals, node) {
    arity(positionals, 0, 0, 'query gov params');
    return queryJson(node, '/sim/gov/params', {}, ctx.height);
  },
};

export const queryModules: Readonly<Record<string, Readonly<Record<string, QueryCommand>>>> = {
  upgrade: upgradeCommands,
  gov: govCommands,
};

/** Runs `query <module> <command> …`, or `query stores`. */
export async function runQuery(ctx: QueryContext, module: string, command: string | undefined, argv: readonly string[]): Promise<number> {
  const { strings, positionals } = parseArgs(argv, { flags: queryFlags, aliases: { o: 'output' } });
  const format = outputFormat(strings.output, 'text');
  const node = await resolveNode(strings, ctx.name);
  const height = strings.height === undefined ? 0 : parseHeight(strings.height, '--height');
  let result: unknown;
  if (module === 'stores') {
    result = await queryJson(node, '/sim/stores', {}, height);
  } else {
    const run = command === undefined ? undefined : queryModules[module]?.[command];
    if (run === undefined) throw new UsageProblem(`unknown command "${command ?? ''}" for "query ${module}"`);
    result = await run({ ...ctx, height }, positionals, node);
  }
  if (result !== null && typeof result === 'object' && 'json' in result && Object.keys(result).length === 1) {
    await ctx.io.out(`${JSON.stringify(result.json, null, 2)}\n`);
  } else {
    await ctx.io.out(render(result, format));
  }
  return 0;
}
