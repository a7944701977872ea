import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { plan } from '../support/fake-node.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

describe('chainvisor run: start-up reconciliation and upgrade-info.json', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  async function writeUpgradeInfo(content: string) {
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data', 'upgrade-info.json'), content);
  }

  test('an upgrade already due at start-up is applied before the first launch', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', runMs: 10 });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10, exitCode: 0 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    await writeUpgradeInfo(JSON.stringify(plan('v2', 10)));
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(await t.journalLines(), ['v2 pre-upgrade 1', 'v2 start [start]', 'v2 exit 0'], 'genesis never ran');
  });

  test('a leftover file of the upgrade already applied does nothing', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10, exitCode: 5 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    assert.equal((await t.cli(['run', 'start'])).exitCode, 5);
    await fs.writeFile(t.journal, '');
    const again = await t.cli(['run', 'start']);
    assert.equal(again.exitCode, 5, again.stderr);
    assert.deepEqual(await t.journalLines(), ['v2 start [start]', 'v2 exit 5'], 'no second pre-upgrade, no switch');
  });

  test('an older plan left in data/ does not switch back', async () => {
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10, exitCode: 0 });
    const v3 = await t.fakeNode({ label: 'v3', runMs: 10, exitCode: 0 });
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v3', 20), style: 'exit' } });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v3', v3]);
    assert.equal((await t.cli(['run', 'start'])).exitCode, 0);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    await writeUpgradeInfo(JSON.stringify(plan('v2', 10)));
    await fs.writeFile(t.journal, '');
    assert.equal((await t.cli(['run', 'start'])).exitCode, 0);
    assert.equal(await t.current(), 'upgrades/v3');
    assert.deepEqual(await t.journalLines(), ['v3 start [start]', 'v3 exit 0']);
  });

  for (const [label, content, reason] of [
    ['empty', '', /the file is empty/],
    ['{}', '{}', /"name" must be a non-empty string; "height" must be a whole JSON number/],
    ['wrong types', '{"name":7,"height":"10"}', /"name" must be a non-empty string; "height" must be a whole JSON number/],
    ['height 0', '{"name":"v2","height":0}', /"height" must be greater than 0, got 0/],
    ['not JSON', 'garbage', /not valid JSON/],
  ] as const) {
    test(`an invalid upgrade-info.json (${label}) is reported and supervision goes on`, async () => {
      const node = await t.fakeNode({ label: 'genesis', onStart: `sleep 0.1; printf '%s' '${content}' > "$DAEMON_HOME/data/upgrade-info.json"` });
      await fs.mkdir(path.join(t.home, 'data'));
      await t.cliOk(['init', node]);
      const run = t.spawn(['run', 'start'], { DAEMON_POLL_INTERVAL: '50ms' });
      try {
        let output = '';
        run.all.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        await waitFor(() => output.includes('ignoring invalid upgrade-info.json'), 'the invalid file is reported', 20_000).catch((error: Error) => {
          throw new Error(`${error.message}; chainvisor printed:\n${output}`);
        });
        const line = output.split('\n').find((l) => l.includes('ignoring invalid upgrade-info.json')) as string;
        assert.match((JSON.parse(line) as { reason: string }).reason, reason);
        assert.equal(run.exitCode, null, 'chainvisor is still running');
      } finally {
        run.kill('SIGTERM');
      }
      const r = await run;
      assert.equal(r.exitCode, 143, 'the node was stopped by the forwarded SIGTERM');
      assert.equal(await t.current(), 'genesis');
    });
  }

  test('a plan written in two pieces is only acted on once whole', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'stay', write: 'pieces' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /ignoring invalid/, 'the half-written file was not reported invalid');
    assert.equal(await t.current(), 'upgrades/v2');
    const record = JSON.parse(await fs.readFile(path.join(t.home, 'cosmovisor/upgrades/v2/upgrade-info.json'), 'utf8'));
    assert.equal(record.height, 10);
  });

  test('an invalid file followed by a valid one: the valid plan is applied', async () => {
    const genesis = await t.fakeNode({
      label: 'genesis',
      onStart: `mkdir -p "$DAEMON_HOME/data"; echo '{"name":""}' > "$DAEMON_HOME/data/upgrade-info.json"; sleep 2`,
      halt: { plan: plan('v2', 10), style: 'stay' },
    });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stderr, /ignoring invalid upgrade-info.json/);
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test('the data folder may not exist when chainvisor starts', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'stay', afterMs: 300 } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    await assert.rejects(fs.access(path.join(t.home, 'data')));
    // A long poll interval: the file event must do the work.
    const r = await t.cli(['run', 'start'], { DAEMON_POLL_INTERVAL: '1m' });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
  });
});
