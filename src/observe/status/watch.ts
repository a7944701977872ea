/**
 * `chainvisor status --watch` (issue #26): what operators run `pvtop` for during an upgrade. On a
 * terminal, one screen redrawn every second: the node, the plan and the blocks left, and after an
 * upgrade the network's height and round, a bar of the prevote share and this validator's vote.
 * Elsewhere (a pipe, a log file), one line each time that summary changes.
 */
import { describeAfterUpgrade } from '../../shared/events/index.js';
import type { StatusDocument } from './document.js';
import { blocksLeft } from './render.js';

const barWidth = 30;

/** The prevote share as a bar with the 2/3 mark: `[██████████░░░░░░░░░░|░░░░░░░░░]  48.0 %`. */
export function shareBar(ratio: number): string {
  const filled = Math.max(0, Math.min(barWidth, Math.round(ratio * barWidth)));
  const mark = Math.round((2 / 3) * barWidth);
  const cells: string[] = [...Array<string>(barWidth)].map((_, i) => (i < filled ? '█' : '░'));
  cells.splice(mark, 0, '|');
  return `[${cells.join('')}] ${(ratio * 100).toFixed(1).padStart(5)} %`;
}

/** The terminal screen: a few lines, redrawn in place. */
export function watchScreen(doc: StatusDocument): string[] {
  const lines: string[] = [];
  const node = `${doc.node.state}${doc.node.pid === null ? '' : ` (pid ${doc.node.pid})`}`;
  lines.push(`node     ${node}, current ${doc.current.name}${doc.chain.height === null ? '' : `, chain height ${doc.chain.height}`}`);
  const p = doc.pending;
  lines.push(
    `plan     ${p === null ? 'none' : `${p.name} at height ${p.height}${p.blocksRemaining === null ? '' : `, ${blocksLeft(p.blocksRemaining)}`}${p.binaryPresent ? '' : ', binary NOT installed'}`}`,
  );
  const a = doc.afterUpgrade;
  if (a !== null) {
    lines.push(`upgrade  ${a.upgrade}: ${a.state}`);
    if (a.state === 'waiting' || a.state === 'stalled') {
      lines.push(`round    height ${a.height ?? '?'}, round ${a.round ?? '?'}`);
      if (a.prevoteRatio !== null) lines.push(`prevotes ${shareBar(a.prevoteRatio)}   (needs more than 66.7 %)`);
      if (a.precommitRatio !== null) lines.push(`precommit${shareBar(a.precommitRatio)}`);
      lines.push(
        `vote     ${a.ownPrevote === null ? 'this node has no voting power (or not known yet)' : a.ownPrevote ? 'this validator prevoted' : 'this validator has NOT prevoted'}`,
      );
    } else {
      lines.push(`         ${describeAfterUpgrade(a)}`);
    }
  }
  if (doc.activity)
    lines.push(
      `working  ${doc.activity.kind} ${doc.activity.what}: ${doc.activity.bytes}${doc.activity.total === null ? '' : ` of ${doc.activity.total}`} bytes`,
    );
  return lines;
}

/** The line a pipe gets at each change: the node, the plan, and the follow's sentence. */
export function watchLine(doc: StatusDocument): string {
  const p = doc.pending;
  const parts = [
    `node ${doc.node.state}`,
    `current ${doc.current.name}`,
    p === null ? 'no plan' : `plan ${p.name} at ${p.height}${p.blocksRemaining === null ? '' : ` (${blocksLeft(p.blocksRemaining)})`}`,
  ];
  if (doc.afterUpgrade) parts.push(describeAfterUpgrade(doc.afterUpgrade));
  return parts.join('; ');
}
