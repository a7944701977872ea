/** The status document for people: `chainvisor status` without `--output json`. */
import { describeEta } from '../../shared/eta.js';
import { describeAfterUpgrade, describeHomeMismatch, describeProposal, describeTwinCheck } from '../../shared/events/index.js';
import { shownText } from '../../shared/json.js';
import type { StatusDocument } from './document.js';

export function renderStatus(doc: StatusDocument): string {
  const rows: [string, string][] = [];
  const add = (key: string, value: string): void => void rows.push([key, value]);
  add('chainvisor', doc.chainvisor.running ? `running (pid ${doc.chainvisor.pid}, since ${doc.chainvisor.since})` : 'not running for this home');
  if (doc.chainvisor.http) add('endpoint', `http://${doc.chainvisor.http}`);
  add('health', doc.health.ok ? 'ok' : `NOT OK: ${doc.health.reason}`);
  if (doc.homeMismatch) add('home', `MISMATCH: ${describeHomeMismatch(doc.homeMismatch)}`);
  add('current', `${doc.current.name}${doc.current.height === null ? '' : ` (height ${doc.current.height})`} → ${doc.current.binary}`);
  const exit = doc.node.lastExit ? `, last exit ${doc.node.lastExit.signal ?? `code ${doc.node.lastExit.code}`}` : '';
  add(
    'node',
    `${doc.node.state}${doc.node.pid === null ? '' : ` (pid ${doc.node.pid})`}${doc.node.since ? ` since ${doc.node.since}` : ''}, ${doc.node.restarts} restart(s)${exit}`,
  );
  if (doc.chain.height !== null) add('chain height', String(doc.chain.height));
  add(
    'pending',
    doc.pending === null
      ? 'none'
      : `${doc.pending.name} at height ${doc.pending.height} (from ${doc.pending.source})` +
          `${doc.pending.blocksRemaining === null ? '' : `, ${blocksLeft(doc.pending.blocksRemaining)}`}` +
          `, binary ${doc.pending.binaryPresent ? 'installed' : 'NOT installed'}`,
  );
  if (doc.pending?.eta) add('eta', `${doc.pending.name} at height ${doc.pending.height}: ${describeEta(doc.pending.eta)}`);
  else if (doc.pending?.etaProblem) add('eta', `${doc.pending.name} at height ${doc.pending.height}: none (${doc.pending.etaProblem})`);
  const now = Date.parse(doc.time);
  for (const p of doc.proposals) add('proposed', `${describeProposal(p, now)}${p.eta ? `; height ${describeEta(p.eta)}` : ''}`);
  add('staged', doc.staged.length === 0 ? 'none' : doc.staged.map(describeStaged).join(', '));
  add('queued', doc.queued.length === 0 ? 'none' : doc.queued.map((q) => `${q.name}@${q.height}`).join(', '));
  const last = doc.lastUpgrade;
  add(
    'last upgrade',
    last === null
      ? 'none'
      : `${last.name} at height ${last.height}: ${last.result}${last.durationSeconds === null ? '' : ` in ${last.durationSeconds.toFixed(1)} s`}${last.error ? ` (${last.error})` : ''}`,
  );
  if (doc.afterUpgrade) add('after upgrade', describeAfterUpgrade(doc.afterUpgrade));
  if (doc.twinCheck) add('twin check', `${describeTwinCheck(doc.twinCheck)} (${doc.twinCheck.checkedAt})`);
  add(
    'backups',
    doc.backups.length === 0
      ? 'none'
      : doc.backups.map((b) => `${b.name}${b.durationSeconds === null ? '' : ` (${b.durationSeconds.toFixed(1)} s)`}`).join(', '),
  );
  for (const r of doc.rehearsals) {
    const migration = r.migration_seconds === null ? '' : `, migration ${r.migration_seconds.toFixed(1)} s`;
    add(
      'rehearsal',
      `${r.upgrade} ${r.result}${migration}, ${r.blocks_after_upgrade} blocks after the upgrade (${r.finished_at})${r.reason ? `: ${r.reason}` : ''}`,
    );
  }
  if (doc.lastRestore) {
    const r = doc.lastRestore;
    add(
      'last restore',
      `${r.time}: ${r.backup} (replaced data in ${r.replaced}; signing state kept: ${r.signing.kept}, replaced height ${r.signing.replacedHeight ?? 'none'}, backup height ${r.signing.backupHeight ?? 'none'}; current ${r.current.to})`,
    );
  }
  if (doc.activity) {
    const total = doc.activity.total === null ? '' : ` of ${doc.activity.total}`;
    add('in progress', `${doc.activity.kind} ${doc.activity.what}: ${doc.activity.bytes}${total} bytes`);
  }
  for (const problem of doc.problems) add('problem', problem);
  const width = Math.max(...rows.map(([key]) => key.length));
  return rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n');
}

/** "1 block left", "3 blocks left". */
export function blocksLeft(n: number): string {
  return `${n} ${n === 1 ? 'block' : 'blocks'} left`;
}

/** "v3", "v3 (from mirror)", "v3 (for proposal #12)", "v3 (not planned: cancelled on chain at …)". */
function describeStaged(s: StatusDocument['staged'][number]): string {
  const notes = [
    ...(s.source === undefined ? [] : [`from ${s.source}`]),
    ...(s.proposal === undefined ? [] : [`for proposal #${shownText(s.proposal, 40)}`]),
    ...(s.planned === false ? [`not planned: cancelled on chain${s.cancelledAt === undefined ? '' : ` at ${s.cancelledAt}`}`] : []),
  ];
  return notes.length === 0 ? s.name : `${s.name} (${notes.join('; ')})`;
}
