/**
 * Who votes for this node (issue #45, item 3): the consensus address of its validator key — from the
 * home's `priv_validator_key.json`, or from the node's own RPC (`/status`) when a remote signer holds
 * the key — matched on chain against the staking validators' consensus keys, giving the operator
 * address and its account, which is the voter. A node without a key, or a key no validator has, has no
 * vote to look up: said once, never an error. Nothing here signs or sends anything.
 */
import { type ChainAddresses, createConsensusReader, type GovReader } from '../../chain/index.js';
import { nodeSigning, readValidatorAddress } from '../../guard/index.js';

export type Voter =
  | { kind: 'validator'; consensusAddress: string; operator: string; account: string; moniker: string }
  /** No vote to look up: `why` says it once to the operator. */
  | { kind: 'none'; why: string };

export async function findVoter(options: { home: string; gov: Pick<GovReader, 'validatorByConsensusAddress'>; addresses: ChainAddresses }): Promise<Voter> {
  const signing = await nodeSigning(options.home);
  let address: string;
  if (signing.remoteSigner !== '') {
    // The key is elsewhere; the node knows its validator's address (0 power: a sentry or not yet bonded, still the same address).
    const reader = createConsensusReader({ address: options.addresses.rpc.address, timeoutMs: 5000 });
    try {
      address = (await reader.validator()).address;
    } finally {
      reader.close();
    }
  } else {
    const key = await readValidatorAddress(signing.keyFile);
    if (key.status === 'missing') return { kind: 'none', why: `this node has no validator key (${key.file}): a full node has no vote to look up` };
    if (key.status === 'unreadable') return { kind: 'none', why: `the validator key ${key.file} cannot be read (${key.reason}): the vote is not looked up` };
    address = key.address;
  }
  const validator = await options.gov.validatorByConsensusAddress(address);
  if (validator === undefined)
    return { kind: 'none', why: `no validator on chain has this node's consensus key (address ${address}): the vote is not looked up` };
  return { kind: 'validator', consensusAddress: address, ...validator };
}
