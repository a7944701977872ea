/** Defensive reads of small files chainvisor does not write itself (see bounded.ts). */
export { type BoundedRead, describeType, readBounded, readBoundedSync } from './bounded.js';
export { exists } from './exists.js';
export { type GenesisFacts, readGenesisFacts } from './genesis.js';
export { pollStat, type StatPoll } from './stat-poll.js';
