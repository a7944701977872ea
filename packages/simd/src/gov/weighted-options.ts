/**
 * Weighted votes as x/gov of SDK v0.50 takes them: the CLI's `yes=0.6,no=0.4` (govutils'
 * NormalizeWeightedVoteOptions, then WeightedVoteOptionsFromString), the checks of the msg server's
 * VoteWeighted (v1) and of the legacy MsgVoteWeighted's ValidateBasic (v1beta1, whose texts are
 * capitalised), and the options as the `proposal_vote` event's `option` shows them.
 */
import { ChainError } from '../util/errors.js';
import { legacyDecText, parseLegacyDec } from './encoding.js';
import { invalidVote } from './errors.js';
import { type VoteOption, voteOptions, type WeightedVoteOption } from './types.js';

const one = 10n ** 18n;
const unspecified = 'VOTE_OPTION_UNSPECIFIED';

/** govutils.NormalizeVoteOption: the CLI's short names; anything else is taken as the enum's name. */
const shortNames: Readonly<Record<string, VoteOption>> = {
  Yes: 'VOTE_OPTION_YES',
  yes: 'VOTE_OPTION_YES',
  Abstain: 'VOTE_OPTION_ABSTAIN',
  abstain: 'VOTE_OPTION_ABSTAIN',
  No: 'VOTE_OPTION_NO',
  no: 'VOTE_OPTION_NO',
  NoWithVeto: 'VOTE_OPTION_NO_WITH_VETO',
  no_with_veto: 'VOTE_OPTION_NO_WITH_VETO',
};

/** An option as a message carries it: the enum's name (UNSPECIFIED included) and the weight's text. */
export interface MsgVoteOption {
  option: string;
  weight: string;
}

/**
 * `tx gov weighted-vote`'s second argument: `yes=0.6,no=0.3,abstain=0.05,no_with_veto=0.05`; an option
 * without `=` weighs 1. Each weight becomes LegacyDec text (18 decimals). Throws the SDK's error text.
 */
export function weightedOptionsFromText(text: string): MsgVoteOption[] {
  return text.split(',').map((entry) => {
    const [name = '', weight = '1'] = entry.split('=');
    const option = Object.hasOwn(shortNames, name) ? (shortNames[name] as string) : name;
    if (option !== unspecified && !(voteOptions as readonly string[]).includes(option)) {
      throw new Error(`'${option}' is not a valid vote option, available options: yes/no/no_with_veto/abstain`);
    }
    return { option, weight: legacyDecText(parseLegacyDec(weight)) };
  });
}

/** The weight of a valid option (more than 0, at most 1, a known option), else undefined. */
function validWeight(o: MsgVoteOption): bigint | undefined {
  let weight: bigint;
  try {
    weight = parseLegacyDec(o.weight);
  } catch {
    return undefined;
  }
  return (voteOptions as readonly string[]).includes(o.option) && weight > 0n && weight <= one ? weight : undefined;
}

/** gogoproto's compact text of a v1 WeightedVoteOption (with its trailing space). */
const optionText = (o: MsgVoteOption) => `option:${o.option} weight:${JSON.stringify(o.weight)} `;

/** The legacy (v1beta1) option's String(): its YAML. */
const legacyOptionText = (o: MsgVoteOption) => `option: ${o.option}\nweight: "${o.weight}"\n`;

/**
 * The checks of a weighted vote, in the SDK's order and words: v1 as the msg server runs them
 * (`total weight overflow 1.00: invalid vote option`), v1beta1 as its ValidateBasic (`Total weight …`).
 * Returns the options as the store keeps them.
 */
export function checkWeightedOptions(options: readonly MsgVoteOption[], style: 'v1' | 'v1beta1'): WeightedVoteOption[] {
  if (options.length === 0) throw new ChainError('sdk', 18, ': invalid request');
  const legacy = style === 'v1beta1';
  let total = 0n;
  const used = new Set<string>();
  for (const o of options) {
    const weight = validWeight(o);
    if (weight === undefined) throw invalidVote(legacy ? legacyOptionText(o) : optionText(o));
    total += weight;
    if (used.has(o.option)) throw invalidVote(legacy ? 'Duplicated vote option' : 'duplicated vote option');
    used.add(o.option);
  }
  if (total > one) throw invalidVote(legacy ? 'Total weight overflow 1.00' : 'total weight overflow 1.00');
  if (total < one) throw invalidVote(legacy ? 'Total weight lower than 1.00' : 'total weight lower than 1.00');
  return options.map((o) => ({ option: o.option as VoteOption, weight: o.weight }));
}

/** The `option` attribute of `proposal_vote`: v1.WeightedVoteOptions.String(), one option a line. */
export function optionsEventText(options: readonly WeightedVoteOption[]): string {
  return options.map(optionText).join('\n').trim();
}
