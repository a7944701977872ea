/**
 * A proposal's messages, stored as the JSON the transaction carried (`{"@type": …, …}`), in their two
 * served forms: protobuf Any (gRPC, ABCI queries) and grpc-gateway JSON (REST). The upgrade messages
 * and the gov messages are known; another type keeps its type URL with an empty value.
 */
import { Any } from 'cosmjs-types/google/protobuf/any.js';
import { MsgCancelUpgrade, MsgSoftwareUpgrade } from 'cosmjs-types/cosmos/upgrade/v1beta1/tx.js';
import { MsgDeposit, MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx.js';
import { voteOptionFromJSON } from 'cosmjs-types/cosmos/gov/v1/gov.js';
import { planJson, planToProto } from '../upgrade/plan.js';
import type { Plan } from '../upgrade/types.js';
import type { Coin } from '../util/coins.js';
import type { AnyMsg } from './types.js';

const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const coins = (value: unknown): Coin[] =>
  Array.isArray(value) ? value.map((c: { denom?: unknown; amount?: unknown }) => ({ denom: text(c?.denom), amount: text(c?.amount) || '0' })) : [];

function plan(msg: AnyMsg): Plan {
  const raw = (msg.plan ?? {}) as Record<string, unknown>;
  const height = text(raw.height);
  return { name: text(raw.name), height: /^-?\d+$/.test(height) ? Number(height) : 0, info: text(raw.info) };
}

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
        return MsgVote.encode({ proposalId: idOf(msg), voter: text(msg.voter), option: voteOptionFromJSON(text(msg.option) || 0), metadata: text(msg.metadata) }).finish();
      case MsgDeposit.typeUrl:
        return MsgDeposit.encode({ proposalId: idOf(msg), depositor: text(msg.depositor), amount: coins(msg.amount) }).finish();
      default:
        return new Uint8Array();
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
      return { '@type': typeUrl, proposal_id: idOf(msg).toString(), voter: text(msg.voter), option: text(msg.option) || 'VOTE_OPTION_UNSPECIFIED', metadata: text(msg.metadata) };
    case MsgDeposit.typeUrl:
      return { '@type': typeUrl, proposal_id: idOf(msg).toString(), depositor: text(msg.depositor), amount: coins(msg.amount) };
    default:
      return { ...msg };
  }
}
