/** Every file chainvisor reads is opened by one rule (open.ts): small ones read whole (bounded.ts), large ones as streams (stream.ts). */
export { type BoundedBytes, type BoundedRead, readBounded, readBoundedBytes, readBoundedSync } from './bounded.js';
export { exists } from './exists.js';
export { type GenesisFacts, type GenesisRead, readGenesisFacts } from './genesis.js';
export { describeType, type NotRead, notReadError, openRegular } from './open.js';
export { duplicateKey, parseRecord, readRecord, recordFields, type RecordRead } from './record.js';
export { pollStat, type StatPoll } from './stat-poll.js';
export { copyRegular, type FileCopy, type FileDigest, hashFile, openReadStream, sameContent, type StreamRead } from './stream.js';
