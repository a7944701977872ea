/**
 * Double-sign protection (docs/double-sign.md): one supervisor and one node per home — the home lock
 * `run` and `restore` hold, the record of the node `run` starts and the start-up stop of a node a killed
 * chainvisor left; the sign guard, which never lets the node start on a signing state that went back
 * (a restore's included); the twin check, which never lets it sign beside another machine; and the
 * home check, which sees a node that lives outside DAEMON_HOME.
 */
export { createHomeCheck, type HomeCheck } from './home-check.js';
export { acquireHomeLock, type LockMode } from './home-lock.js';
export { localKeyOf } from './home-seen.js';
export { createNodeTracker, type NodeTracker, runningNodeAddresses } from './node-record.js';
export { stopOrphanNode } from './orphan.js';
export { restoreSigning } from './restore-signing.js';
export { createSignGuard, type SignGuard } from './sign-guard.js';
export { nodeSigning } from './sign-state.js';
export { createTwinCheck, type TwinCheck } from './twin-check.js';
export { readValidatorAddress, type ValidatorAddress } from './validator-key.js';
