import assert from 'node:assert/strict';
import { test } from 'node:test';

import { renderStatus, shareBar, type StatusDocument, watchLine, watchScreen } from '../../../src/observe/status/index.js';
import type { AfterUpgrade } from '../../../src/shared/events/index.js';

const waiting: AfterUpgrade = {
  upgrade: 'v2',
  state: 'waiting',
  height: 1234567,
  round: 2,
  prevoteRatio: 0.48,
  precommitRatio: 0.1,
  ownPrevote: true,
  signed: null,
  seconds: null,
  since: '2026-11-26T00:00:00.000Z',
};

function doc(afterUpgrade: AfterUpgrade | null): StatusDocument {
  return {
    version: 't',
    time: '',
    home: '/h',
    chainvisor: { running: true, pid: 1, since: null, http: null },
    current: { name: 'v2', dir: 'upgrades/v2', binary: '/h/bin', height: 1234567 },
    node: { pid: 2, state: 'running', since: null, restarts: 1, lastExit: null },
    pending: null,
    chain: { height: 1234566 },
    proposals: [],
    staged: [],
    queued: [],
    lastUpgrade: null,
    backups: [],
    activity: null,
    afterUpgrade,
    twinCheck: null,
    homeMismatch: null,
    rehearsals: [],
    lastRehearsal: null,
    lastRestore: null,
    health: { ok: true, reason: null },
    problems: [],
  };
}

test('status names the state in one line', () => {
  assert.match(
    renderStatus(doc(waiting)),
    /after upgrade +v2: waiting at height 1234567, round 2: 48 % of the voting power prevoted \(needs more than 66\.7 %\), this validator prevoted$/m,
  );
  const confirmed = { ...waiting, state: 'confirmed' as const, round: null, prevoteRatio: null, precommitRatio: null, signed: false, seconds: 312.4 };
  assert.match(renderStatus(doc(confirmed)), /v2: confirmed, first block at height 1234567 312\.4 s after the switch; this validator did NOT sign it/);
  assert.match(renderStatus(doc({ ...confirmed, state: 'not-signing' })), /v2: not signing, /);
  assert.match(
    renderStatus(doc({ ...waiting, state: 'stalled', ownPrevote: null })),
    /v2: stalled, .* 48 % of the voting power prevoted \(needs more than 66\.7 %\)$/m,
  );
  assert.doesNotMatch(renderStatus(doc(null)), /after upgrade/);
});

test('--watch: the bar with the 2/3 mark, the round and the vote; a pipe line per change', () => {
  assert.equal(shareBar(0), `[${'░'.repeat(20)}|${'░'.repeat(10)}]   0.0 %`);
  assert.equal(shareBar(1), `[${'█'.repeat(20)}|${'█'.repeat(10)}] 100.0 %`);
  const screen = watchScreen(doc(waiting)).join('\n');
  assert.match(screen, /round +height 1234567, round 2/);
  assert.match(screen, /prevotes \[█{14}░{6}\|░{10}\] {2}48\.0 %/);
  assert.match(screen, /vote +this validator prevoted/);
  assert.match(screen, /plan +none/);
  assert.notEqual(watchLine(doc(waiting)), watchLine(doc({ ...waiting, prevoteRatio: 0.5 })));
  assert.equal(watchLine(doc(waiting)), watchLine(doc({ ...waiting })));
});
