/**
 * The CometBFT RPC answers chainvisor reads (v0.37/v0.38), of the node's RPC and of the network's, as
 * schemas: only the fields it uses, each bounded, so that an answer of another shape — a node that lies,
 * a proxy in front of it, a port that is not a node at all — is refused with the first place it is
 * wrong, never half-used (issue #31: 4 MB of nested arrays held `run` at 800 MB; a bit array of 4
 * million entries at 458 MB; a share of 10^23 was shown as "1e+25 %"). The JSON-RPC envelope is
 * checked by json-rpc.ts; these are its `result`.
 */
import * as v from 'valibot';

/** CometBFT's MaxVotesCount: no validator set, bit array or commit has more entries. */
export const maxValidators = 10_000;

/**
 * Rounds listed in /consensus_state's height_vote_set (0 … round + 1). A round lasts at least the propose
 * timeout, which grows each round: 1000 rounds are days of a stalled chain.
 */
export const maxRounds = 1000;

/** A height or round as CometBFT writes it, within what a JavaScript number holds exactly. */
const heightText = v.pipe(
  v.string(),
  v.regex(/^\d{1,16}$/, 'a height is a decimal string'),
  v.transform(Number),
  v.safeInteger('a height is at most 2^53 - 1'),
);

/** Voting power: an int64 as a decimal string; only compared and divided, so a number is exact enough. */
const powerText = v.pipe(v.string(), v.regex(/^\d{1,19}$/, 'voting power is a decimal string of at most 19 digits'), v.transform(Number));

/** A validator address: hex (20 bytes for every key type CometBFT has), upper-cased as commits are compared. */
const address = v.pipe(v.string(), v.regex(/^[0-9A-Fa-f]{1,64}$/, 'an address is hex'), v.toUpperCase());

/** `BA{<n>:<x or _ per validator>} <voted power>/<total power> = <share>`, or `nil-BitArray`; parsed by parseVoteShare. */
const bitArrayText = v.pipe(v.string(), v.maxLength(maxValidators + 100, `a bit array has at most ${maxValidators} entries`));

/** An array of at most `max` entries, its length checked before any entry is (or the array is copied). */
const boundedArray = <S extends v.GenericSchema>(item: S, max: number, what: string) =>
  v.pipe(
    v.custom<unknown[]>((value) => Array.isArray(value), 'not an array'),
    v.check((value) => value.length <= max, `more than ${max} ${what}`),
    v.array(item),
  );

/** /status: this node's validator (power "0" when it is none) and the latest height. */
export const statusAnswer = v.object({
  sync_info: v.object({ latest_block_height: heightText }),
  validator_info: v.object({ address, voting_power: powerText }),
});

/** /status, for the latest height only (the chain reader). */
export const latestHeightAnswer = v.object({ sync_info: v.object({ latest_block_height: heightText }) });

/** /consensus_state: the height, round and step, and the vote sets of each round. */
export const consensusStateAnswer = v.object({
  round_state: v.object({
    'height/round/step': v.pipe(
      v.string(),
      v.regex(/^\d{1,16}\/\d{1,6}\/\d{1,2}$/, '"height/round/step" is three decimal numbers'),
      v.transform((text) => text.split('/').map(Number) as [number, number, number]),
      v.check(([height]) => Number.isSafeInteger(height), 'a height is at most 2^53 - 1'),
    ),
    height_vote_set: v.optional(
      boundedArray(
        v.object({
          round: v.pipe(v.number(), v.integer(), v.minValue(0)),
          prevotes_bit_array: v.optional(bitArrayText),
          precommits_bit_array: v.optional(bitArrayText),
        }),
        maxRounds,
        'rounds',
      ),
      [],
    ),
  }),
});

const validatorEntry = v.object({ address });

/** /dump_consensus_state: the validator set in bit-array order (the rest of this large answer is not read). */
export const dumpConsensusStateAnswer = v.object({
  round_state: v.object({ validators: v.object({ validators: boundedArray(validatorEntry, maxValidators, 'validators') }) }),
});

/** /validators?page=P&per_page=100: one page of the same set, in the same order. */
export const validatorsAnswer = v.object({
  validators: boundedArray(validatorEntry, 100, 'validators on a page of 100'),
  // A string, as CometBFT's JSON writes its ints; a number tolerated.
  total: v.pipe(
    v.union([heightText, v.pipe(v.number(), v.safeInteger())]),
    v.minValue(0),
    v.maxValue(maxValidators, `a validator set has at most ${maxValidators} validators`),
  ),
});

/** /commit?height=H: the block's time and who signed (block_id_flag 2 for the block, 3 for nil, 1 absent). */
export const commitAnswer = v.object({
  signed_header: v.object({
    header: v.object({
      time: v.pipe(
        v.string(),
        v.maxLength(64),
        v.transform(Date.parse),
        v.check((ms) => Number.isFinite(ms), 'the block time is an RFC 3339 time'),
      ),
    }),
    commit: v.object({
      signatures: boundedArray(
        v.object({
          block_id_flag: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3)),
          // Empty for an absent validator (flag 1).
          validator_address: v.optional(v.union([v.literal(''), address]), ''),
        }),
        maxValidators,
        'signatures',
      ),
    }),
  }),
});

/** /abci_query: the query's code (0, or left out, when it succeeded) and its base64 answer. */
export const abciQueryAnswer = v.object({
  response: v.object({
    code: v.optional(v.pipe(v.number(), v.integer()), 0),
    log: v.optional(v.string(), ''),
    value: v.optional(v.nullable(v.pipe(v.string(), v.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'the value is base64'))), null),
  }),
});

/** A height of the network's answers (the twin check's words), within what a number holds exactly. */
const networkHeight = v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'not a decimal height'), v.transform(Number));

/** A network RPC's /status: the chain id, the newest height and its time. */
export const networkStatusAnswer = v.object({
  node_info: v.object({ network: v.string() }),
  sync_info: v.object({ latest_block_height: networkHeight, latest_block_time: v.optional(v.string()) }),
});

/** A network RPC's /validators?height=H&page=P&per_page=100. */
export const networkValidatorsAnswer = v.object({
  validators: boundedArray(v.object({ address: v.string() }), 100, 'validators on a page of 100'),
  total: networkHeight,
});

/** A network RPC's /commit (?height=H): the header's chain id and time, the height and who signed. */
export const networkCommitAnswer = v.object({
  signed_header: v.object({
    header: v.object({ chain_id: v.string(), time: v.string() }),
    commit: v.object({
      height: networkHeight,
      signatures: boundedArray(v.object({ block_id_flag: v.number(), validator_address: v.nullish(v.string()) }), maxValidators, 'signatures'),
    }),
  }),
});
