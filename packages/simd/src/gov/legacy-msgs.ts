/**
 * The legacy gov messages (x/gov's legacy msg server and ExecLegacyContent): a v1beta1 MsgSubmitProposal
 * becomes a v1 proposal whose one message is MsgExecLegacyContent with the content; a v1beta1 MsgVote or
 * MsgVoteWeighted is a v1 vote (the weighted one checked first as its ValidateBasic does); a passed MsgExecLegacyContent runs its content's handler (the upgrade contents schedule or
 * cancel the plan as MsgSoftwareUpgrade and MsgCancelUpgrade would; a TextProposal does nothing).
 */
import { govAddress } from '../core/accounts.js';
import type { AnyMsg, MsgContext, MsgRoute } from '../core/msg.js';
import { routeOf } from '../core/msg.js';
import { cancelUpgradeMsg, softwareUpgradeMsg } from '../upgrade/msgs.js';
import { ChainError, invalidRequest } from '../util/errors.js';
import { invalidProposalContent, unexpectedAuthority } from './errors.js';
import { msgSubmitProposalType, msgVoteOptions, msgVoteType, msgVoteWeightedType } from './msgs.js';
import { checkWeightedOptions } from './weighted-options.js';

export const msgExecLegacyContentType = '/cosmos.gov.v1.MsgExecLegacyContent';
export const msgSubmitProposalV1beta1Type = '/cosmos.gov.v1beta1.MsgSubmitProposal';
export const msgVoteV1beta1Type = '/cosmos.gov.v1beta1.MsgVote';
export const msgVoteWeightedV1beta1Type = '/cosmos.gov.v1beta1.MsgVoteWeighted';
export const softwareUpgradeProposalType = '/cosmos.upgrade.v1beta1.SoftwareUpgradeProposal';
export const cancelSoftwareUpgradeProposalType = '/cosmos.upgrade.v1beta1.CancelSoftwareUpgradeProposal';
export const textProposalType = '/cosmos.gov.v1beta1.TextProposal';

const str = (value: unknown) => (typeof value === 'string' ? value : '');
const contentOf = (msg: AnyMsg) => (msg.content !== null && typeof msg.content === 'object' ? (msg.content as AnyMsg) : undefined);

/** The message a legacy content stands for, executed as the gov account; undefined for a TextProposal. */
function contentMessage(content: AnyMsg): AnyMsg | undefined {
  switch (content['@type']) {
    case softwareUpgradeProposalType: {
      const plan = (content.plan ?? {}) as { name?: unknown; height?: unknown; info?: unknown };
      const height = str(plan.height) || String(plan.height ?? '0');
      if (!/^-?\d+$/.test(height)) throw invalidRequest(`invalid plan height ${JSON.stringify(plan.height)}: expected an integer`);
      return softwareUpgradeMsg(govAddress, { name: str(plan.name), height: Number(height), info: str(plan.info) });
    }
    case cancelSoftwareUpgradeProposalType:
      return cancelUpgradeMsg(govAddress);
    case textProposalType:
      return undefined;
    default:
      throw invalidProposalContent(`no handler exists for proposal type ${JSON.stringify(content['@type'])}`);
  }
}

async function run(ctx: MsgContext, msg: AnyMsg): Promise<void> {
  const route = routeOf(ctx, msg);
  if (route === undefined) throw invalidRequest(`unrecognized message type ${msg['@type']}`);
  await route.execute(ctx, msg);
}

const execLegacyContent: MsgRoute = {
  signer: (msg) => str(msg.authority),
  async execute(ctx, msg) {
    if (str(msg.authority) !== govAddress) throw unexpectedAuthority(govAddress, str(msg.authority));
    const content = contentOf(msg);
    if (content === undefined) throw invalidProposalContent('missing content');
    const inner = contentMessage(content);
    if (inner === undefined) return;
    try {
      await run(ctx, inner);
    } catch (error) {
      throw invalidProposalContent(`failed to run legacy handler upgrade, ${error instanceof Error ? error.message : String(error)}`);
    }
  },
};

const submitLegacyProposal: MsgRoute = {
  signer: (msg) => str(msg.proposer),
  async execute(ctx, msg) {
    const content = contentOf(msg);
    if (content === undefined) throw invalidProposalContent('missing content');
    if (str(content.title).trim() === '') throw invalidProposalContent('proposal title cannot be blank');
    if (str(content.description).trim() === '') throw invalidProposalContent('proposal description cannot be blank');
    contentMessage(content);
    await run(ctx, {
      '@type': msgSubmitProposalType,
      messages: [{ '@type': msgExecLegacyContentType, content, authority: govAddress }],
      initial_deposit: msg.initial_deposit ?? [],
      proposer: str(msg.proposer),
      metadata: '',
      title: str(content.title),
      summary: str(content.description),
      expedited: false,
    });
  },
};

const legacyVote: MsgRoute = {
  signer: (msg) => str(msg.voter),
  execute: (ctx, msg) => run(ctx, { ...msg, '@type': msgVoteType, metadata: '' }),
};

const legacyVoteWeighted: MsgRoute = {
  signer: (msg) => str(msg.voter),
  async execute(ctx, msg) {
    if (str(msg.voter) === '') throw new ChainError('sdk', 7, ': invalid address');
    checkWeightedOptions(msgVoteOptions(msg), 'v1beta1');
    await run(ctx, { ...msg, '@type': msgVoteWeightedType, metadata: '' });
  },
};

export const legacyGovRoutes: Readonly<Record<string, MsgRoute>> = {
  [msgExecLegacyContentType]: execLegacyContent,
  [msgSubmitProposalV1beta1Type]: submitLegacyProposal,
  [msgVoteV1beta1Type]: legacyVote,
  [msgVoteWeightedV1beta1Type]: legacyVoteWeighted,
};
