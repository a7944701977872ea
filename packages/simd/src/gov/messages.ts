/**
 * Messages, kept as JSON (`{"@type": …, …}`), and their protobuf Any (transactions, gRPC, ABCI queries)
 * and grpc-gateway JSON (REST) forms. The upgrade messages and the gov messages are known (the legacy
 * ones through legacy-codecs.ts); another type keeps its type URL with an empty value, and an Any of an
 * unknown type cannot be read back.
 */
import { voteOptionFromJSON, voteOptionToJSON } from 'cosmjs-types/cosmos/gov/v1/gov.js';
import { MsgDeposit, MsgSubmitProposal, MsgVote, MsgVoteWeighted } from 'cosmjs-types/cosmos/gov/v1/tx.js';
import { MsgCancelUpgrade, MsgSoftwareUpgrade } from 'cosmjs-types/cosmos/upgrade/v1beta1/tx.js';
import { Any } from 'cosmjs-types/google/protobuf/any.js';

import type { AnyMsg } from '../core/msg.js';
import { planFromProto, planJson, planToProto } from '../upgrade/plan.js';
import type { Plan } from '../upgrade/types.js';
import type { Coin } from '../util/coins.js';
import { legacyCodecs } from './legacy-codecs.js';

const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const coins = (value: unknown): Coin[] =>
  Array.isArray(value) ? value.map((c: { denom?: unknown; amount?: unknown }) => ({ denom: text(c?.denom), amount: text(c?.amount) || '0' })) : [];

function plan(msg: AnyMsg): Plan {
  const raw = (msg.plan ?? {}) as Record<string, unknown>;
  const height = text(raw.height);
  return { name: text(raw.name), height: /^-?\d+$/.test(height) ? Number(height) : 0, info: text(raw.info) };
}

/** A weighted vote's options: the option's name and the weight's text, as the message carries them. */
const optionsOf = (msg: AnyMsg) =>
  (Array.isArray(msg.options) ? (msg.options as Array<Record<string, unknown> | null>) : []).map((o) => ({
    option: text(o?.option) || 'VOTE_OPTION_UNSPECIFIED',
    weight: text(o?.weight),
  }));

const idOf = (msg: AnyMsg) => (/^\d+$/.test(text(msg.proposal_id)) ? BigInt(text(msg.proposal_id)) : 0n);

export function messageToAny(msg: AnyMsg): Any {
  const typeUrl = msg['@type'];
  const value = (() => {
    switch (typeUrl) {
      case MsgSoftwareUpgrade.typeUrl:
        return MsgSoftwareUpgrade.encode({ authority: text(msg.authority), plan: planToProto(plan(msg)) }).finish();
      case MsgCancelUpgrade.typeUrl:
        return MsgCancelUpgrade.encode({ authority: text(msg.authority) }).finish();
      case MsgVote.typeUrl:
        return MsgVote.encode({
          proposalId: idOf(msg),
          voter: text(msg.voter),
          option: voteOptionFromJSON(text(msg.option) || 0),
          metadata: text(msg.metadata),
        }).finish();
      case MsgVoteWeighted.typeUrl:
        return MsgVoteWeighted.encode({
          proposalId: idOf(msg),
          voter: text(msg.voter),
          options: optionsOf(msg).map((o) => ({ option: voteOptionFromJSON(o.option), weight: o.weight })),
          metadata: text(msg.metadata),
        }).finish();
      case MsgDeposit.typeUrl:
        return MsgDeposit.encode({ proposalId: idOf(msg), depositor: text(msg.depositor), amount: coins(msg.amount) }).finish();
      case MsgSubmitProposal.typeUrl: {
        const writer = MsgSubmitProposal.encode({
          messages: (Array.isArray(msg.messages) ? (msg.messages as AnyMsg[]) : []).map(messageToAny),
          initialDeposit: coins(msg.initial_deposit),
          proposer: text(msg.proposer),
          metadata: text(msg.metadata),
          title: text(msg.title),
          summary: text(msg.summary),
        });
        // v0.50's `expedited` (7), which cosmjs-types 0.9 does not have.
        if (msg.expedited === true) writer.uint32((7 << 3) | 0).bool(true);
        return writer.finish();
      }
      default:
        return legacyCodecs[typeUrl]?.encode(msg) ?? new Uint8Array();
    }
  })();
  return Any.fromPartial({ typeUrl, value });
}

/** The message as grpc-gateway renders an Any: `@type` first, then the fields in protobuf order. */
export function messageJson(msg: AnyMsg): Record<string, unknown> {
  const typeUrl = msg['@type'];
  switch (typeUrl) {
    case MsgSoftwareUpgrade.typeUrl:
      return { '@type': typeUrl, authority: text(msg.authority), plan: planJson(plan(msg)) };
    case MsgCancelUpgrade.typeUrl:
      return { '@type': typeUrl, authority: text(msg.authority) };
    case MsgVote.typeUrl:
      return {
        '@type': typeUrl,
        proposal_id: idOf(msg).toString(),
        voter: text(msg.voter),
        option: text(msg.option) || 'VOTE_OPTION_UNSPECIFIED',
        metadata: text(msg.metadata),
      };
    case MsgVoteWeighted.typeUrl:
      return { '@type': typeUrl, proposal_id: idOf(msg).toString(), voter: text(msg.voter), options: optionsOf(msg), metadata: text(msg.metadata) };
    case MsgDeposit.typeUrl:
      return { '@type': typeUrl, proposal_id: idOf(msg).toString(), depositor: text(msg.depositor), amount: coins(msg.amount) };
    default: {
      const codec = legacyCodecs[typeUrl];
      return codec === undefined ? { ...msg } : { '@type': typeUrl, ...codec.json(msg) };
    }
  }
}

/** What the SDK's decoder says of an Any whose type it does not know. */
export class UnknownTypeUrl extends Error {}

/** The JSON of a message from its Any (a transaction's message, or one inside a proposal). */
export function messageFromAny(any: Any): AnyMsg {
  const typeUrl = any.typeUrl;
  switch (typeUrl) {
    case MsgSoftwareUpgrade.typeUrl: {
      const m = MsgSoftwareUpgrade.decode(any.value);
      const p = planFromProto(m.plan ?? planToProto({ name: '', height: 0, info: '' }));
      return {
        '@type': typeUrl,
        authority: m.authority,
        plan: { name: p.name, time: '0001-01-01T00:00:00Z', height: String(p.height), info: p.info, upgraded_client_state: null },
      };
    }
    case MsgCancelUpgrade.typeUrl:
      return { '@type': typeUrl, authority: MsgCancelUpgrade.decode(any.value).authority };
    case MsgVote.typeUrl: {
      const m = MsgVote.decode(any.value);
      return { '@type': typeUrl, proposal_id: m.proposalId.toString(), voter: m.voter, option: voteOptionToJSON(m.option), metadata: m.metadata };
    }
    case MsgVoteWeighted.typeUrl: {
      const m = MsgVoteWeighted.decode(any.value);
      const options = m.options.map((o) => ({ option: voteOptionToJSON(o.option), weight: o.weight }));
      return { '@type': typeUrl, proposal_id: m.proposalId.toString(), voter: m.voter, options, metadata: m.metadata };
    }
    case MsgDeposit.typeUrl: {
      const m = MsgDeposit.decode(any.value);
      return {
        '@type': typeUrl,
        proposal_id: m.proposalId.toString(),
        depositor: m.depositor,
        amount: m.amount.map((c) => ({ denom: c.denom, amount: c.amount })),
      };
    }
    case MsgSubmitProposal.typeUrl: {
      const m = MsgSubmitProposal.decode(any.value);
      return {
        '@type': typeUrl,
        messages: m.messages.map(messageFromAny),
        initial_deposit: m.initialDeposit.map((c) => ({ denom: c.denom, amount: c.amount })),
        proposer: m.proposer,
        metadata: m.metadata,
        title: m.title,
        summary: m.summary,
        expedited: false,
      };
    }
    default: {
      const codec = legacyCodecs[typeUrl];
      if (codec !== undefined) return codec.decode(any.value);
      throw new UnknownTypeUrl(`unable to resolve type URL ${typeUrl}`);
    }
  }
}
