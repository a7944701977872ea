/**
 * Never two signers (issue #32, docs/double-sign.md): the twin check before every start of a
 * validator with a local key and while it runs — this validator's signatures on the network, above
 * what this home has signed, were made by another machine.
 */
export { createTwinCheck, type TwinCheck, type TwinCheckOptions } from './check.js';
export { readValidatorAddress, type ValidatorAddress } from './validator-key.js';
