/**
 * `chainvisor check-plan --upgrade <name>` (issue #34): one row per source, as the upgrade would weigh
 * them, so an operator can check a fleet's registry against the proposal before the vote ends. URLs are
 * shown as downloads show them (credentials and queries redacted).
 */
import { formatChecksum } from '../../verify/index.js';
import type { Resolution } from './resolve.js';

export interface SourceRow {
  source: string;
  url: string;
  checksum: string;
  agreement: string;
}

export interface SourceReport {
  rows: SourceRow[];
  /** What a source said instead of a URL, one line each. */
  notes: string[];
  /** The outcome in one line: where the binary comes from and with which checksum, or why none would be installed. */
  summary: string;
}

export function sourceReport(resolution: Resolution, quorum: number): SourceReport {
  const { answers, weighed } = resolution;
  const rows = answers.map((answer, i): SourceRow => {
    if (answer.state === 'found') {
      const checksum = answer.download.checksum === undefined ? 'none given' : formatChecksum(answer.download.checksum);
      return { source: answer.source, url: answer.download.shown, checksum, agreement: weighed.agreement[i] ?? '-' };
    }
    const agreement = answer.state === 'none' ? 'no entry' : answer.state === 'height-differs' ? 'other height' : 'UNUSABLE';
    return { source: answer.source, url: answer.origin, checksum: '-', agreement };
  });
  const notes = answers.flatMap((answer) => (answer.state === 'found' ? [] : [`${answer.source}: ${answer.detail}`]));
  const [first, ...mirrors] = weighed.candidates;
  const checksum = weighed.checksum === undefined ? 'no checksum' : formatChecksum(weighed.checksum);
  const summary =
    first === undefined
      ? 'no binary would be installed'
      : `binary from ${first.source} (${first.platform}), checksum ${checksum} given by ${weighed.agreeing.length} source(s), quorum ${quorum}` +
        (mirrors.length === 0 ? '' : `; mirrors: ${mirrors.map((m) => m.source).join(', ')}`);
  return { rows, notes, summary };
}
