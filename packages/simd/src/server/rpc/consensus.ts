/**
 * `consensus_state` and `dump_consensus_state` (CometBFT rpc/core/consensus.go), as pvtop reads
 * them: `height/round/step`, and per round the votes as `Vote{…}` / `nil-Vote` strings with the
 * bit array `BA{<n>:<x or _ per validator>} <voted power>/<total power> = <share>`, in the order of
 * the validator set that the dump lists.
 */
import { type RoundState, type SimVote, votedPower } from '../../chain/round-state.js';
import { precommitSignature, type SetValidator, type ValidatorSet } from '../../chain/validator-set.js';
import { formatNanos } from '../../util/time.js';
import { method, type RpcMethod } from './backend.js';
import { validatorJson } from './shapes.js';

type VoteType = 'prevote' | 'precommit';

/** cmtbytes.Fingerprint: the first 6 bytes, zero-padded, in upper-case hex. */
function fingerprint(hex: string): string {
  return hex.slice(0, 12).toUpperCase().padEnd(12, '0');
}

/** CometBFT's `Vote.String()`. */
function voteString(state: RoundState, round: number, type: VoteType, index: number, vote: SimVote | undefined): string {
  const validator = state.set.validators[index] as SetValidator;
  if (vote === undefined) return 'nil-Vote';
  const signature = Buffer.from(precommitSignature(`${type}/${round}/${vote.blockHash}`, validator.address), 'base64').toString('hex');
  const kind = type === 'prevote' ? 'SIGNED_MSG_TYPE_PREVOTE(Prevote)' : 'SIGNED_MSG_TYPE_PRECOMMIT(Precommit)';
  const roundText = String(round).padStart(2, '0');
  return `Vote{${index}:${fingerprint(validator.address)} ${state.height}/${roundText}/${kind} ${fingerprint(vote.blockHash)} ${fingerprint(signature)} 000000000000 @ ${formatNanos(vote.timeNanos)}}`;
}

/** `VoteSet.BitArrayString()`. */
export function bitArrayString(set: ValidatorSet, votes: ReadonlyMap<number, SimVote>): string {
  const bits = set.validators.map((_v, i) => (votes.has(i) ? 'x' : '_')).join('');
  const voted = votedPower(set, votes);
  const share = set.totalPower === 0n ? 0 : Number(voted) / Number(set.totalPower);
  return `BA{${set.validators.length}:${bits}} ${voted}/${set.totalPower} = ${share.toFixed(2)}`;
}

function heightVoteSet(state: RoundState): unknown[] {
  return state.rounds.map((r) => {
    const list = (type: VoteType, votes: ReadonlyMap<number, SimVote>) =>
      state.set.validators.map((_v, i) => voteString(state, r.round, type, i, votes.get(i)));
    return {
      round: r.round,
      prevotes: list('prevote', r.prevotes),
      prevotes_bit_array: bitArrayString(state.set, r.prevotes),
      precommits: list('precommit', r.precommits),
      precommits_bit_array: bitArrayString(state.set, r.precommits),
    };
  });
}

/** The proposer: this node's validator (it proposes every block of the simulated chain). */
function proposer(set: ValidatorSet) {
  return { address: set.validators[set.selfIndex]?.address ?? '', index: set.selfIndex };
}

export const consensusMethods: Record<string, RpcMethod> = {
  consensus_state: method([], async (_params, backend) => {
    const state = backend.roundState();
    return {
      round_state: {
        'height/round/step': `${state.height}/${state.round}/${state.step}`,
        start_time: formatNanos(state.startNanos),
        proposal_block_hash: state.proposalHash,
        locked_block_hash: '',
        valid_block_hash: '',
        height_vote_set: heightVoteSet(state),
        proposer: proposer(state.set),
      },
    };
  }),

  dump_consensus_state: method([], async (_params, backend) => {
    const state = backend.roundState();
    const validators = {
      validators: state.set.validators.map(validatorJson),
      proposer: validatorJson(state.set.validators[state.set.selfIndex] as SetValidator),
    };
    return {
      round_state: {
        height: String(state.height),
        round: state.round,
        step: state.step,
        start_time: formatNanos(state.startNanos),
        commit_time: formatNanos(state.startNanos),
        validators,
        proposal: null,
        proposal_block: null,
        proposal_block_parts: null,
        locked_round: -1,
        locked_block: null,
        locked_block_parts: null,
        valid_round: -1,
        valid_block: null,
        valid_block_parts: null,
        votes: heightVoteSet(state),
        commit_round: -1,
        last_commit: null,
        last_validators: validators,
        triggered_timeout_precommit: false,
      },
      peers: [],
    };
  }),
};
