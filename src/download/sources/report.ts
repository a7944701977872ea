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
      const agreement = weighed.agreement[i] ?? '-';
      // The row says what the download would do: a URL the URL policy refuses is never fetched.
      return { source: answer.source, url: answer.download.shown, checksum, agreement: weighed.refused[i] ? `${agreement}, URL REFUSED` : agreement };
    }
    const agreement = answer.state === 'none' ? 'no entry' : answer.state === 'height-differs' ? 'other height' : 'UNUSABLE';
    return { source: answer.source, url: answer.origin, checksum: '-', agreement };
  });
  const notes = answers.flatMap((answer, i) => {
    if (answer.state !== 'found') return [`${answer.source}: ${answer.detail}`];
    const refusal = weighed.refused[i];
    return refusal === undefined ? [] : [`${answer.source}: ${refusal.message}`];
  });
  const [first, ...mirrors] = weighed.candidates;
  const checksum = weighed.checksum === undefined ? 'no checksum' : formatChecksum(weighed.checksum);
  const summary =
    first === undefined
      ? 'no binary would be installed'
      : `binary from ${first.source} (${first.platform}), checksum ${checksum} given by ${weighed.agreeing.length} source(s), quorum ${quorum}` +
        (mirrors.length === 0 ? '' : `; mirrors: ${mirrors.map((m) => m.source).join(', ')}`);
  return { rows, notes, summary };
}
