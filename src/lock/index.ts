/**
 * One supervisor and one node per home: the home lock `run` holds for its whole life, the record of
 * the node it starts, and the start-up search for a node a killed chainvisor left behind.
 */
export { type AcquireOptions, type HomeLock, HomeLockedError, type LockHolder, type LockMode, acquireHomeLock, lockRecordPath } from './home-lock.js';
export { type NodeRecord, type NodeTracker, createNodeTracker, nodeRecordPath, readNodeRecord, runIdVariable } from './node-record.js';
export { type OrphanOptions, defaultGraceMs, stopOrphanNode } from './orphan.js';
