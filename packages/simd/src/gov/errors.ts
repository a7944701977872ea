/** The gov module's errors (codespace `gov`). */
import { ChainError, GrpcCode } from '../util/errors.js';

const codespace = 'gov';

export function unknownProposal(id: string): ChainError {
  return new ChainError(codespace, 2, `${id}: unknown proposal`, GrpcCode.notFound);
}

export function inactiveProposal(id: string): ChainError {
  return new ChainError(codespace, 3, `${id}: inactive proposal`);
}

export function invalidProposalContent(message: string): ChainError {
  return new ChainError(codespace, 5, `${message}: invalid proposal content`);
}

export function invalidVote(message: string): ChainError {
  return new ChainError(codespace, 8, `${message}: invalid vote option`);
}

export function invalidProposalSigner(signer: string): ChainError {
  return new ChainError(codespace, 16, `${signer}: expected authority account as only signer for proposal message`);
}

export function invalidDepositDenom(message: string): ChainError {
  return new ChainError(codespace, 23, `${message}: invalid deposit denom`);
}

/** MsgExecLegacyContent sent by anyone but the gov account (x/gov's ExecLegacyContent). */
export function unexpectedAuthority(expected: string, got: string): ChainError {
  return new ChainError(codespace, 16, `expected ${expected} got ${got}: expected authority account as only signer for proposal message`);
}
