/**
 * The sign guard (issue #28) through the real command: a node whose signing state went back is not
 * started (exit 84), and is once the newest state is back; off for a remote signer and with
 * CHAINVISOR_SIGN_GUARD=off; a new chain id starts a new record; a node that is no validator is never
 * stopped. The fake node "signs" by writing data/priv_validator_state.json as it starts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { compareSignPoints, parseSignState } from '../../src/guard/sign-state.js';
import { makeHome, type TestHome } from '../support/home.js';

function stateJson(height: number, round = 0, step = 3): string {
  return JSON.stringify({ height: String(height), round, step, signature: 'c2ln', signbytes: 'ab' });
}

describe('sign state', () => {
  test('(height, round, step) compare as CometBFT does; heights are int64 decimal strings', () => {
    const p = (h: string, r: number, s: number) => parseSignState(JSON.stringify({ height: h, round: r, step: s }), 'f');
    assert.ok(compareSignPoints(p('10', 0, 3), p('9', 9, 3)) > 0);
    assert.ok(compareSignPoints(p('10', 1, 1), p('10', 0, 3)) > 0);
    assert.ok(compareSignPoints(p('10', 1, 2), p('10', 1, 3)) < 0);
    assert.equal(compareSignPoints(p('10', 1, 3), p('10', 1, 3)), 0);
    assert.ok(compareSignPoints(p('9223372036854775807', 0, 0), p('9223372036854775806', 0, 3)) > 0);
    assert.throws(() => p('9223372036854775808', 0, 0), { code: 'CHAINVISOR_SIGN_STATE_UNREADABLE' });
    assert.throws(() => parseSignState('{"height": "x"}', 'f'), { code: 'CHAINVISOR_SIGN_STATE_UNREADABLE' });
    assert.throws(() => parseSignState('{"height": "1", "step": 7}', 'f'), { code: 'CHAINVISOR_SIGN_STATE_UNREADABLE' });
    assert.throws(() => parseSignState('not json', 'f'), { code: 'CHAINVISOR_SIGN_STATE_UNREADABLE' });
  });
});

describe('chainvisor run: the sign guard', () => {
  let t: TestHome;
  const stateFile = () => path.join(t.home, 'data', 'priv_validator_state.json');
  const record = async () => JSON.parse(await fs.readFile(path.join(t.home, 'cosmovisor', '.chainvisor', 'sign-state.json'), 'utf8'));
  const starts = async () => (await t.journalLines()).filter((l) => l.startsWith('genesis start')).length;

  beforeEach(async () => {
    t = await makeHome();
    await fs.mkdir(path.join(t.home, 'config'), { recursive: true });
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'config', 'genesis.json'), JSON.stringify({ genesis_time: '2026-01-01T00:00:00Z', chain_id: 'guard-1' }));
    // The node signs up to the height in SIGN_TO (when set) as it starts, then runs a moment and exits 0.
    const node = await t.fakeNode({
      label: 'genesis',
      runMs: 150,
      onStart: `[ -n "$SIGN_TO" ] && printf '{"height":"%s","round":0,"step":3}' "$SIGN_TO" > "$DAEMON_HOME/data/priv_validator_state.json"`,
    });
    await t.cliOk(['init', node]);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('a signing state put back behind what was signed: exit 84, no start, both heights named; the newest state back: it starts', async () => {
    await fs.writeFile(stateFile(), stateJson(0, 0, 0));
    assert.equal((await t.cli(['run', 'start'], { SIGN_TO: '120' })).exitCode, 0);
    assert.equal((await record()).chains['guard-1'].height, '120', 'read after the node exited');

    // A backup's state file (height 80) put back by hand.
    await fs.writeFile(stateFile(), stateJson(80));
    const refused = await t.cli(['run', 'start']);
    assert.equal(refused.exitCode, 84, refused.stderr);
    assert.match(refused.stderr, /code: CHAINVISOR_SIGN_STATE_BEHIND/);
    assert.match(refused.stderr, /at height 80 round 0 step 3, behind height 120 round 0 step 3/);
    assert.match(refused.stderr, /hint: put back the priv_validator_state\.json at height 120 or later/);
    assert.equal(await starts(), 1, 'the node was not started');

    // A missing file is behind too (CometBFT would make a new one at height 0).
    await fs.rm(stateFile());
    assert.equal((await t.cli(['run', 'start'])).exitCode, 84);

    await fs.writeFile(stateFile(), stateJson(120));
    const started = await t.cli(['run', 'start']);
    assert.equal(started.exitCode, 0, started.stderr);
    assert.equal(await starts(), 2);
  });

  test('an unreadable signing state refuses the start with its own code', async () => {
    await fs.writeFile(stateFile(), '{"height": 12.5');
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 84, r.stderr);
    assert.match(r.stderr, /code: CHAINVISOR_SIGN_STATE_UNREADABLE/);
    assert.equal(await starts(), 0);
  });

  test('off for a remote signer (priv_validator_laddr) and with CHAINVISOR_SIGN_GUARD=off, which warns', async () => {
    await fs.writeFile(stateFile(), stateJson(0, 0, 0));
    await t.cliOk(['run', 'start'], { SIGN_TO: '50' });
    await fs.writeFile(stateFile(), stateJson(10));

    const off = await t.cli(['run', 'start'], { CHAINVISOR_SIGN_GUARD: 'off' });
    assert.equal(off.exitCode, 0, off.stderr);
    assert.match(off.stderr, /CHAINVISOR_SIGN_GUARD=off: the node is started without checking/);

    await fs.writeFile(stateFile(), stateJson(10));
    await fs.writeFile(path.join(t.home, 'config', 'config.toml'), 'moniker = "v"\npriv_validator_laddr = "tcp://127.0.0.1:26659"\n');
    const remote = await t.cli(['run', 'start']);
    assert.equal(remote.exitCode, 0, remote.stderr);
    assert.match(remote.stderr, /remote signer \(tcp:\/\/127\.0\.0\.1:26659\)/);
    assert.equal(await starts(), 3);
    assert.equal((await record()).chains['guard-1'].height, '50', 'nothing recorded while the guard is off');
  });

  test('a new chain id starts a new record; a node with no signing state file is never held back', async () => {
    assert.equal((await t.cli(['run', 'start'])).exitCode, 0, 'no state file, no record: a full node');
    await fs.writeFile(stateFile(), stateJson(0, 0, 0));
    await t.cliOk(['run', 'start'], { SIGN_TO: '300' });

    // A genesis restart under a new chain id: the new network's state begins at 0.
    await fs.writeFile(path.join(t.home, 'config', 'genesis.json'), JSON.stringify({ chain_id: 'guard-2' }));
    await fs.writeFile(stateFile(), stateJson(0, 0, 0));
    await t.cliOk(['run', 'start'], { SIGN_TO: '5' });
    const chains = (await record()).chains;
    assert.equal(chains['guard-1'].height, '300');
    assert.equal(chains['guard-2'].height, '5');
    assert.equal(await starts(), 3);
  });
});
