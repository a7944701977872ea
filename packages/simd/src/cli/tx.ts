/**
 * `<bin> tx upgrade software-upgrade|cancel-software-upgrade` (upgrade-module.md §4.4), and the table of
 * every `tx` command (the gov ones are in gov-tx.ts).
 * Upgrade messages travel inside a governance proposal (authority: the gov module account) unless
 * `--direct` sends the message itself, signed by `--from`, which is how the authority check
 * can be exercised.
 */
import { QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { govAddress } from '../core/accounts.js';
import type { AnyMsg } from '../core/msg.js';
import { cancelSoftwareUpgradeProposalType, msgSubmitProposalV1beta1Type, softwareUpgradeProposalType } from '../gov/legacy-msgs.js';
import { msgSubmitProposalType } from '../gov/msgs.js';
import type { GovParams } from '../gov/types.js';
import type { NodeState } from '../server/query-service.js';
import { cancelUpgradeMsg, softwareUpgradeMsg } from '../upgrade/msgs.js';
import { upgradeQueryService } from '../upgrade/queries.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { type FlagKind, parseArgs, parseHeight, UsageProblem } from './args.js';
import { aliases, broadcast, parseCoinsFlag, type TxContext, txFlags } from './broadcast.js';
import { abciQuery, queryJson, resolveNode, rpcCall } from './client.js';
import { deposit, vote, weightedVote } from './gov-tx.js';
import { resolveFrom } from './keys.js';
import { upgradeInfoProblems } from './upgrade-info-check.js';

const proposalFlags: Readonly<Record<string, FlagKind>> = {
  ...txFlags,
  title: 'string',
  summary: 'string',
  deposit: 'string',
  metadata: 'string',
  direct: 'boolean',
  legacy: 'boolean',
};

const softwareUpgradeFlags: Readonly<Record<string, FlagKind>> = {
  ...proposalFlags,
  'upgrade-height': 'string',
  'upgrade-info': 'string',
  'no-validate': 'boolean',
  'safety-delta': 'string',
  'daemon-name': 'string',
};

function submitProposalMsg(strings: Record<string, string>, from: string, messages: AnyMsg[]): AnyMsg {
  return {
    '@type': msgSubmitProposalType,
    messages,
    initial_deposit: parseCoinsFlag(strings.deposit ?? ''),
    proposer: from,
    metadata: strings.metadata ?? '',
    title: strings.title ?? '',
    summary: strings.summary ?? '',
    expedited: false,
  };
}

/**
 * `--legacy`: the proposal as a pre-v0.46 client sends it, a v1beta1 MsgSubmitProposal whose content is
 * the legacy SoftwareUpgradeProposal or CancelSoftwareUpgradeProposal (the chain keeps it as a v1
 * proposal holding MsgExecLegacyContent).
 */
function legacyProposalMsg(strings: Record<string, string>, from: string, content: Record<string, unknown>): AnyMsg {
  return {
    '@type': msgSubmitProposalV1beta1Type,
    content: { ...content, title: strings.title ?? '', description: strings.summary ?? '' },
    initial_deposit: parseCoinsFlag(strings.deposit ?? ''),
    proposer: from,
  };
}

interface ChainTiming {
  height: number;
  blockMs: number;
  votingMs: number;
  depositMs: number;
}

async function chainTiming(node: string): Promise<ChainTiming> {
  const status = (await rpcCall(node, 'status')) as { sync_info: { latest_block_height: string } };
  const { params } = await queryJson<{ params: GovParams }>(node, '/sim/gov/params');
  const state = await queryJson<NodeState>(node, '/sim/node');
  return {
    height: Number(status.sync_info.latest_block_height),
    blockMs: Math.max(1, state.block_time_ms),
    votingMs: parseDuration(params.voting_period),
    depositMs: parseDuration(params.max_deposit_period),
  };
}

/** upgrade-module.md §3 rule 2: keep `2 × (VotingPeriod + DepositPeriod) + SafetyDelta` between proposal and height. */
function heightWarnings(t: ChainTiming, height: number, safetyMs: number): string[] {
  const blocks = (ms: number) => Math.ceil(ms / t.blockMs);
  const perBlock = formatDuration(t.blockMs);
  const votingEnds = t.height + 1 + blocks(t.votingMs);
  if (height < votingEnds) {
    return [
      `the vote on this proposal ends around height ${votingEnds} (voting period ${formatDuration(t.votingMs)} at ${perBlock} per block), ` +
        `after the upgrade height ${height}: the plan will be in the past when the proposal passes, and the proposal will fail ` +
        `with "upgrade cannot be scheduled in the past"`,
    ];
  }
  const needed = blocks(2 * (t.votingMs + t.depositMs) + safetyMs);
  const recommended = t.height + needed;
  if (height >= recommended) return [];
  return [
    `upgrade height ${height} leaves no room to cancel: a cancel proposal needs 2 × (voting period ${formatDuration(t.votingMs)} + ` +
      `deposit period ${formatDuration(t.depositMs)}) + safety delta ${formatDuration(safetyMs)} ≈ ${needed} blocks at ${perBlock} per block; ` +
      `schedule it at height ${recommended} or later to keep that option`,
  ];
}

async function softwareUpgrade(ctx: TxContext, argv: readonly string[]): Promise<number> {
  const { strings, booleans, positionals } = parseArgs(argv, { flags: softwareUpgradeFlags, aliases });
  if (positionals.length !== 1) throw new UsageProblem(`software-upgrade takes exactly one argument, the upgrade name; got ${positionals.length}`);
  const from = resolveFrom(strings.from);
  if (strings['upgrade-height'] === undefined) throw new UsageProblem('required flag "upgrade-height" not set');
  const plan = { name: positionals[0] as string, height: parseHeight(strings['upgrade-height'], '--upgrade-height'), info: strings['upgrade-info'] ?? '' };
  if (!booleans['no-validate']) {
    const problems = upgradeInfoProblems(plan.info);
    if (problems.length > 0) {
      throw new UsageProblem(
        `invalid --upgrade-info:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
        'fix the upgrade info (expected: {"binaries":{"linux/amd64":"https://…?checksum=sha256:…"}}), or pass --no-validate to skip this check',
      );
    }
  }
  const node = await resolveNode(strings, ctx.name);
  const safetyMs = parseDuration(strings['safety-delta'] ?? '0s', '--safety-delta');
  const timing = await chainTiming(node);
  if (booleans.direct) {
    if (plan.height < timing.height) ctx.io.err(`WARNING: upgrade height ${plan.height} is below the current height ${timing.height}\n`);
    return broadcast(ctx, strings, from, [softwareUpgradeMsg(from, plan)]);
  }
  for (const warning of heightWarnings(timing, plan.height, safetyMs)) ctx.io.err(`WARNING: ${warning}\n`);
  if (booleans.legacy) {
    const content = { '@type': softwareUpgradeProposalType, plan: softwareUpgradeMsg(govAddress, plan).plan };
    return broadcast(ctx, strings, from, [legacyProposalMsg(strings, from, content)]);
  }
  return broadcast(ctx, strings, from, [submitProposalMsg(strings, from, [softwareUpgradeMsg(govAddress, plan)])]);
}

async function cancelSoftwareUpgrade(ctx: TxContext, argv: readonly string[]): Promise<number> {
  const { strings, booleans, positionals } = parseArgs(argv, { flags: proposalFlags, aliases });
  if (positionals.length !== 0) throw new UsageProblem('cancel-software-upgrade takes no arguments');
  const from = resolveFrom(strings.from);
  if (booleans.direct) return broadcast(ctx, strings, from, [cancelUpgradeMsg(from)]);
  const node = await resolveNode(strings, ctx.name);
  const { plan } = QueryCurrentPlanResponse.decode(await abciQuery(node, `/${upgradeQueryService}/CurrentPlan`));
  if (plan !== undefined) {
    const timing = await chainTiming(node);
    const votingEnds = timing.height + 1 + Math.ceil(timing.votingMs / timing.blockMs);
    if (votingEnds >= Number(plan.height)) {
      ctx.io.err(
        `WARNING: the vote on this cancel proposal ends around height ${votingEnds}, at or after the scheduled upgrade "${plan.name}" ` +
          `at height ${plan.height}: the cancellation would come too late\n`,
      );
    }
  }
  if (booleans.legacy) return broadcast(ctx, strings, from, [legacyProposalMsg(strings, from, { '@type': cancelSoftwareUpgradeProposalType })]);
  return broadcast(ctx, strings, from, [submitProposalMsg(strings, from, [cancelUpgradeMsg(govAddress)])]);
}

export const txCommands: Readonly<Record<string, Readonly<Record<string, (ctx: TxContext, argv: readonly string[]) => Promise<number>>>>> = {
  upgrade: { 'software-upgrade': softwareUpgrade, 'cancel-software-upgrade': cancelSoftwareUpgrade },
  gov: { vote, 'weighted-vote': weightedVote, deposit },
};
