/**
 * The legacy (v1beta1) gov shapes in their three forms (JSON, protobuf Any, grpc-gateway JSON): the
 * contents a proposal carried before gov v1 (SoftwareUpgradeProposal, CancelSoftwareUpgradeProposal,
 * TextProposal), MsgExecLegacyContent that wraps one in a v1 proposal, and the v1beta1 MsgSubmitProposal
 * MsgVote and MsgVoteWeighted older clients send (a weight goes on the wire as its LegacyDec × 10¹⁸). messages.ts asks this table for any type it does not know itself.
 */
import { MsgExecLegacyContent } from 'cosmjs-types/cosmos/gov/v1/tx.js';
import { TextProposal, voteOptionFromJSON, voteOptionToJSON } from 'cosmjs-types/cosmos/gov/v1beta1/gov.js';
import { MsgSubmitProposal, MsgVote, MsgVoteWeighted } from 'cosmjs-types/cosmos/gov/v1beta1/tx.js';
import { CancelSoftwareUpgradeProposal, SoftwareUpgradeProposal } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';
import { Any } from 'cosmjs-types/google/protobuf/any.js';

import type { AnyMsg } from '../core/msg.js';
import { planFromProto, planJson, planToProto } from '../upgrade/plan.js';
import type { Coin } from '../util/coins.js';
import { legacyDec, legacyDecAtomics, legacyDecText } from './encoding.js';

export interface LegacyCodec {
  encode(msg: AnyMsg): Uint8Array;
  decode(bytes: Uint8Array): AnyMsg;
  json(msg: AnyMsg): Record<string, unknown>;
}

const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const coins = (value: unknown): Coin[] =>
  Array.isArray(value) ? value.map((c: { denom?: unknown; amount?: unknown }) => ({ denom: text(c?.denom), amount: text(c?.amount) || '0' })) : [];
const object = (value: unknown): Record<string, unknown> => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {});

function planOf(value: unknown) {
  const raw = object(value);
  const height = text(raw.height);
  return { name: text(raw.name), height: /^-?\d+$/.test(height) ? Number(height) : 0, info: text(raw.info) };
}

/** A content's Any: a known legacy content, or its type with an empty value. */
function contentToAny(content: unknown): Any | undefined {
  const msg = object(content) as AnyMsg;
  if (typeof msg['@type'] !== 'string') return undefined;
  const codec = legacyCodecs[msg['@type']];
  return Any.fromPartial({ typeUrl: msg['@type'], value: codec === undefined ? new Uint8Array() : codec.encode(msg) });
}

function contentFromAny(any: Any | undefined): AnyMsg | null {
  if (any === undefined) return null;
  const codec = legacyCodecs[any.typeUrl];
  return codec === undefined ? { '@type': any.typeUrl } : codec.decode(any.value);
}

function contentJson(content: unknown): Record<string, unknown> | null {
  const msg = object(content) as AnyMsg;
  if (typeof msg['@type'] !== 'string') return null;
  const codec = legacyCodecs[msg['@type']];
  return codec === undefined ? { ...msg } : { '@type': msg['@type'], ...codec.json(msg) };
}

const optionName = (value: unknown) => text(value) || 'VOTE_OPTION_UNSPECIFIED';
const proposalIdOf = (m: AnyMsg) => (/^\d+$/.test(text(m.proposal_id)) ? BigInt(text(m.proposal_id)) : 0n);
const optionsOf = (m: AnyMsg) =>
  (Array.isArray(m.options) ? (m.options as unknown[]) : []).map((o) => ({ option: optionName(object(o).option), weight: legacyDec(text(object(o).weight)) }));
/** A weight's LegacyDec text on the wire (its integer × 10¹⁸); a text that is no decimal goes as it is. */
const atomicsOf = (weight: string) => (/^-?\d+(\.\d+)?$/.test(weight) ? legacyDecAtomics(weight) : weight);

/** Keyed by type URL; `decode` gives the JSON with its `@type`, `json` the gateway's fields without it. */
export const legacyCodecs: Readonly<Record<string, LegacyCodec>> = {
  [SoftwareUpgradeProposal.typeUrl]: {
    encode: (m) => SoftwareUpgradeProposal.encode({ title: text(m.title), description: text(m.description), plan: planToProto(planOf(m.plan)) }).finish(),
    decode(bytes) {
      const p = SoftwareUpgradeProposal.decode(bytes);
      return { '@type': SoftwareUpgradeProposal.typeUrl, title: p.title, description: p.description, plan: planJson(planFromProto(p.plan)) };
    },
    json: (m) => ({ title: text(m.title), description: text(m.description), plan: planJson(planOf(m.plan)) }),
  },
  [CancelSoftwareUpgradeProposal.typeUrl]: {
    encode: (m) => CancelSoftwareUpgradeProposal.encode({ title: text(m.title), description: text(m.description) }).finish(),
    decode(bytes) {
      const p = CancelSoftwareUpgradeProposal.decode(bytes);
      return { '@type': CancelSoftwareUpgradeProposal.typeUrl, title: p.title, description: p.description };
    },
    json: (m) => ({ title: text(m.title), description: text(m.description) }),
  },
  [TextProposal.typeUrl]: {
    encode: (m) => TextProposal.encode({ title: text(m.title), description: text(m.description) }).finish(),
    decode(bytes) {
      const p = TextProposal.decode(bytes);
      return { '@type': TextProposal.typeUrl, title: p.title, description: p.description };
    },
    json: (m) => ({ title: text(m.title), description: text(m.description) }),
  },
  [MsgExecLegacyContent.typeUrl]: {
    encode: (m) => MsgExecLegacyContent.encode({ content: contentToAny(m.content), authority: text(m.authority) }).finish(),
    decode(bytes) {
      const m = MsgExecLegacyContent.decode(bytes);
      return { '@type': MsgExecLegacyContent.typeUrl, content: contentFromAny(m.content), authority: m.authority };
    },
    json: (m) => ({ content: contentJson(m.content), authority: text(m.authority) }),
  },
  [MsgSubmitProposal.typeUrl]: {
    encode: (m) =>
      MsgSubmitProposal.encode({ content: contentToAny(m.content), initialDeposit: coins(m.initial_deposit), proposer: text(m.proposer) }).finish(),
    decode(bytes) {
      const m = MsgSubmitProposal.decode(bytes);
      return { '@type': MsgSubmitProposal.typeUrl, content: contentFromAny(m.content), initial_deposit: coins(m.initialDeposit), proposer: m.proposer };
    },
    json: (m) => ({ content: contentJson(m.content), initial_deposit: coins(m.initial_deposit), proposer: text(m.proposer) }),
  },
  [MsgVote.typeUrl]: {
    encode: (m) =>
      MsgVote.encode({
        proposalId: /^\d+$/.test(text(m.proposal_id)) ? BigInt(text(m.proposal_id)) : 0n,
        voter: text(m.voter),
        option: voteOptionFromJSON(text(m.option) || 0),
      }).finish(),
    decode(bytes) {
      const m = MsgVote.decode(bytes);
      return { '@type': MsgVote.typeUrl, proposal_id: m.proposalId.toString(), voter: m.voter, option: voteOptionToJSON(m.option) };
    },
    json: (m) => ({ proposal_id: text(m.proposal_id) || '0', voter: text(m.voter), option: optionName(m.option) }),
  },
  [MsgVoteWeighted.typeUrl]: {
    encode: (m) =>
      MsgVoteWeighted.encode({
        proposalId: proposalIdOf(m),
        voter: text(m.voter),
        options: optionsOf(m).map((o) => ({ option: voteOptionFromJSON(o.option), weight: atomicsOf(o.weight) })),
      }).finish(),
    decode(bytes) {
      const m = MsgVoteWeighted.decode(bytes);
      const options = m.options.map((o) => ({
        option: voteOptionToJSON(o.option),
        weight: /^-?\d+$/.test(o.weight) ? legacyDecText(BigInt(o.weight)) : o.weight,
      }));
      return { '@type': MsgVoteWeighted.typeUrl, proposal_id: m.proposalId.toString(), voter: m.voter, options };
    },
    json: (m) => ({ proposal_id: text(m.proposal_id) || '0', voter: text(m.voter), options: optionsOf(m) }),
  },
};

/** What the v1beta1 queries show as a proposal's `content` (the SDK's v3 conversion): a legacy content, else the first message. */
export function legacyContentOf(messages: readonly AnyMsg[]): AnyMsg | undefined {
  const exec = messages.find((m) => m['@type'] === MsgExecLegacyContent.typeUrl);
  if (exec !== undefined && typeof object(exec.content)['@type'] === 'string') return exec.content as AnyMsg;
  return messages[0];
}
