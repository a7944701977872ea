/**
 * Where an upgrade's binary comes from (issue #34, docs/sources.md): the plan's Info, an operator's
 * registry, a chain registry's versions.json, asked in the order CHAINVISOR_UPGRADE_SOURCES gives, with
 * checksums that must agree (CHAINVISOR_CHECKSUM_QUORUM) and mirrors tried when a download fails.
 */
export { type Agreement, type Candidate, describeAnswer, weighAnswers, type Weighed } from './agreement.js';
export { askSource, type SourceAnswer } from './ask.js';
export { matchEntry, maxSourceBytes, parseSourceDocument, type SourceEntry } from './documents.js';
export { ChecksumDisagreementError, NoSourceBinaryError, QuorumNotMetError, type SourceChecksum } from './errors.js';
export { type SourceReport, sourceReport, type SourceRow } from './report.js';
export { binaryCandidates, type Resolution, type ResolveOptions, resolveSources, sourceDeadlineAtHeightMs, tryMirrorAfter, usesSources } from './resolve.js';
