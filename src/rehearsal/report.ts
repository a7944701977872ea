/** A rehearsal report for a person: the result, the phases timed, memory and disk, and for a failure the reason and the node's last lines. */
import { formatBytesExact as formatBytes } from '../shared/units.js';
import type { RehearsalReport } from './record.js';

const secs = (s: number | null) => (s === null ? '—' : `${s.toFixed(1)} s`);

export function renderReport(report: RehearsalReport): string {
  const lines = [
    `rehearsal of upgrade "${report.upgrade}": ${report.result.toUpperCase()}${report.reason ? ` — ${report.reason}` : ''}`,
    `  copy of the data          ${secs(report.phases.copy)}`,
    `  old binary to the halt    ${secs(report.phases.halt)}${report.height === null ? '' : ` (halt for height ${report.height})`}`,
    `  migration                 ${secs(report.phases.migration)} (the halt to the new binary's first block)`,
    `  blocks after the upgrade  ${report.blocks_after_upgrade} in ${secs(report.phases.blocks)}`,
    `  new binary's peak memory  ${report.peak_rss_bytes === null ? '—' : formatBytes(report.peak_rss_bytes)}`,
    `  scratch disk use          ${formatBytes(report.scratch_bytes)}${report.kept ? ` (kept in ${report.kept})` : ' (removed)'}`,
  ];
  if (report.result === 'failed' && report.log_tail.length > 0) {
    lines.push('', `the node's last ${report.log_tail.length} lines:`, ...report.log_tail.map((l) => `  ${l}`));
  }
  return lines.join('\n');
}
