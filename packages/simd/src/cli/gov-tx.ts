/** `<bin> tx gov vote|weighted-vote|deposit`: a vote (one option, or weighted) and a deposit, signed by `--from`. */
import { msgVoteWeightedV1beta1Type } from '../gov/legacy-msgs.js';
import { msgDepositType, msgVoteType, msgVoteWeightedType } from '../gov/msgs.js';
import type { GovParams } from '../gov/types.js';
import { checkWeightedOptions, type MsgVoteOption, weightedOptionsFromText } from '../gov/weighted-options.js';
import { ChainError, SimError } from '../util/errors.js';
import { parseArgs, UsageProblem } from './args.js';
import { aliases, broadcast, parseCoinsFlag, type TxContext, txFlags } from './broadcast.js';
import { queryJson, resolveNode } from './client.js';
import { resolveFrom } from './keys.js';

const voteOption: Readonly<Record<string, string>> = {
  yes: 'VOTE_OPTION_YES',
  no: 'VOTE_OPTION_NO',
  abstain: 'VOTE_OPTION_ABSTAIN',
  no_with_veto: 'VOTE_OPTION_NO_WITH_VETO',
  nowithveto: 'VOTE_OPTION_NO_WITH_VETO',
};

export async function vote(ctx: TxContext, argv: readonly string[]): Promise<number> {
  const { strings, positionals } = parseArgs(argv, { flags: { ...txFlags, metadata: 'string' }, aliases });
  const [id, option] = positionals;
  if (id === undefined || option === undefined || positionals.length !== 2)
    throw new UsageProblem('usage: tx gov vote <proposal-id> <yes|no|abstain|no_with_veto> --from <key>');
  const mapped = voteOption[option.toLowerCase()] ?? (Object.values(voteOption).includes(option) ? option : undefined);
  if (mapped === undefined) throw new UsageProblem(`invalid vote option ${JSON.stringify(option)}: expected yes, no, abstain or no_with_veto`);
  const from = resolveFrom(strings.from);
  const msg = { '@type': msgVoteType, proposal_id: id, voter: from, option: mapped, metadata: strings.metadata ?? '' };
  return broadcast(ctx, strings, from, [msg]);
}

export async function deposit(ctx: TxContext, argv: readonly string[]): Promise<number> {
  const { strings, positionals } = parseArgs(argv, { flags: txFlags, aliases });
  const [id, amount] = positionals;
  if (id === undefined || amount === undefined || positionals.length !== 2) throw new UsageProblem('usage: tx gov deposit <proposal-id> <amount> --from <key>');
  const from = resolveFrom(strings.from);
  const msg = { '@type': msgDepositType, proposal_id: id, depositor: from, amount: parseCoinsFlag(amount) };
  return broadcast(ctx, strings, from, [msg]);
}

const maxUint64 = (1n << 64n) - 1n;

/** The SDK's CLI errors of weighted-vote, printed as `Error: <text>`. */
const cliError = (message: string) => new SimError('SIM_BAD_ARGUMENT', message);

function weightedOptions(text: string): MsgVoteOption[] {
  try {
    return weightedOptionsFromText(text);
  } catch (error) {
    throw cliError((error as Error).message);
  }
}

/**
 * `tx gov weighted-vote <proposal-id> <weighted-options>` (x/gov's NewCmdWeightedVote), options as in
 * `yes=0.6,no=0.3,abstain=0.05,no_with_veto=0.05`. The id is a base-10 uint64. A v1 MsgVoteWeighted,
 * whose weights the chain checks (SDK v0.50); on a v1beta1-only chain a v1beta1 MsgVoteWeighted, checked
 * here before sending as the CLI of those SDK versions runs its ValidateBasic.
 */
export async function weightedVote(ctx: TxContext, argv: readonly string[]): Promise<number> {
  const { strings, positionals } = parseArgs(argv, { flags: { ...txFlags, metadata: 'string' }, aliases });
  if (positionals.length !== 2)
    throw new UsageProblem(`accepts 2 arg(s), received ${positionals.length}`, 'usage: tx gov weighted-vote <proposal-id> <weighted-options> --from <key>');
  const [id, text] = positionals as [string, string];
  const from = resolveFrom(strings.from);
  if (!/^\d+$/.test(id) || BigInt(id) > maxUint64) throw cliError(`proposal-id ${id} not a valid int, please input a valid proposal-id`);
  const options = weightedOptions(text);
  const node = await resolveNode(strings, ctx.name);
  const { params } = await queryJson<{ params: GovParams }>(node, '/sim/gov/params');
  const proposalId = BigInt(id).toString();
  if (params.v1beta1_only === true) {
    try {
      checkWeightedOptions(options, 'v1beta1');
    } catch (error) {
      if (error instanceof ChainError) throw cliError(error.message);
      throw error;
    }
    return broadcast(ctx, strings, from, [{ '@type': msgVoteWeightedV1beta1Type, proposal_id: proposalId, voter: from, options }]);
  }
  const msg = { '@type': msgVoteWeightedType, proposal_id: proposalId, voter: from, options, metadata: strings.metadata ?? '' };
  return broadcast(ctx, strings, from, [msg]);
}
