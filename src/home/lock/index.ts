/**
 * One supervisor and one node per home: the home lock `run` holds for its whole life, the record of
 * the node it starts, and the start-up search for a node a killed chainvisor left behind; the sign
 * guard, with the validator's signing state and chainvisor's record of what it signed.
 */
// The chain id the guard keys its record by, read from the node's genesis by chain/node-files.ts.
export { cachedChainId, readChainId } from '../../chain/index.js';
export { acquireHomeLock, type AcquireOptions, type HomeLock, type LockHolder, type LockMode, lockRecordPath } from './home-lock.js';
export { createNodeTracker, type NodeRecord, nodeRecordPath, type NodeTracker, readNodeRecord, runIdVariable } from './node-record.js';
export { type OrphanOptions, stopOrphanNode } from './orphan.js';
export { createSignGuard, type SignGuard, type SignGuardOptions } from './sign-guard.js';
export { pointOf, raiseSignRecord, readSignRecords, type SignRecord, signRecordPath, type SignRecords } from './sign-record.js';
export {
  compareSignPoints,
  describePoint,
  heightText,
  type NodeSigning,
  nodeSigning,
  parseSignState,
  readSignStateFile,
  roundNumber,
  type SignPoint,
  stepNumber,
} from './sign-state.js';
