/**
 * End to end with the real `chainvisor run`: the endpoint, the webhooks and the logs as an operator's
 * monitoring sees them through an upgrade genesis → v2, then the v2 node exiting on its own.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { plan } from '../support/fake-node.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';
import { endpointOf, sample } from '../support/observe-kit.js';
import { refusedUrl, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const token = 'tok-3f9a';

async function get(origin: string, route: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${origin}${route}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text() };
}

describe('chainvisor run: metrics, health, status, webhooks, logs', () => {
  let t: TestHome;
  let live: WebhookReceiver;
  let dead: WebhookReceiver;
  beforeEach(async () => {
    live = await startWebhookReceiver();
    dead = await startWebhookReceiver();
    dead.always = 'hang';
    t = await makeHome({
      CHAINVISOR_HTTP_ADDRESS: '127.0.0.1:0',
      CHAINVISOR_HTTP_TOKEN: token,
      CHAINVISOR_WEBHOOK_URL: `${dead.url},${await refusedUrl()},${live.url}`,
      CHAINVISOR_LOG_FORMAT: 'json',
    });
  });
  afterEach(async () => {
    await live.close();
    await dead.close();
    await t.cleanup();
  });

  test('values move through an upgrade; webhooks arrive in order; dead receivers do not hold the switch back', async () => {
    // Each phase long enough for a `chainvisor status` process on a loaded machine.
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit', afterMs: 10_000 } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 8000, exitCode: 3 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const run = t.spawn(['run', 'start']);
    try {
      const origin = await endpointOf(t);
      assert.equal((await fetch(`${origin}/metrics`)).status, 401, 'no token, no metrics');

      // Before: genesis runs, v2 is staged.
      await waitFor(async () => (await get(origin, '/healthz')).status === 200, '/healthz says ok');
      const before = (await get(origin, '/metrics')).text;
      assert.equal(sample(before, 'chainvisor_node_up'), 1);
      assert.equal(sample(before, 'chainvisor_current_upgrade_info{name="genesis"}'), 1);
      assert.equal(sample(before, 'chainvisor_upgrades_total{result="applied"}'), 0);
      assert.equal(sample(before, 'chainvisor_node_restarts_total'), 0);
      assert.ok(sample(before, 'process_resident_memory_bytes') !== undefined, 'default process metrics');
      assert.match(before, /^chainvisor_build_info\{version="[^"]+"\} 1$/m);
      const status = JSON.parse((await get(origin, '/status')).text);
      assert.equal(status.current.name, 'genesis');
      assert.equal(status.node.state, 'running');
      assert.equal(typeof status.node.pid, 'number');
      assert.equal(status.pending, null);
      assert.deepEqual(
        status.staged.map((s: { name: string }) => s.name),
        ['v2'],
      );
      // status.json follows the live state within a second (it is rewritten at most once a second).
      let cli: { node?: { pid?: number } } = {};
      await waitFor(async () => {
        cli = JSON.parse((await t.cliOk(['status', '--output', 'json'])).stdout);
        return cli.node?.pid === status.node.pid;
      }, 'chainvisor status to show the running node, as run keeps it');
      assert.equal(cli.node?.pid, status.node.pid, 'chainvisor status asks the running run');
      assert.deepEqual(Object.keys(cli).sort(), Object.keys(status).sort(), 'the same document');

      // After the switch.
      await waitFor(() => live.delivered().some((r) => r.body.event === 'upgrade-applied'), 'the upgrade-applied webhook', 30_000);
      await waitFor(async () => (await get(origin, '/healthz')).status === 200, '/healthz ok again');
      const after = (await get(origin, '/metrics')).text;
      assert.equal(sample(after, 'chainvisor_current_upgrade_info{name="v2"}'), 1);
      assert.equal(sample(after, 'chainvisor_current_upgrade_info{name="genesis"}'), undefined);
      assert.equal(sample(after, 'chainvisor_upgrades_total{result="applied"}'), 1);
      assert.equal(sample(after, 'chainvisor_node_restarts_total'), 1);
      assert.equal(sample(after, 'chainvisor_upgrade_duration_seconds_count'), 1);
      const statusAfter = JSON.parse((await get(origin, '/status')).text);
      assert.equal(statusAfter.current.name, 'v2');
      assert.equal(statusAfter.lastUpgrade.name, 'v2');
      assert.equal(statusAfter.lastUpgrade.result, 'applied');
      assert.equal(typeof statusAfter.lastUpgrade.durationSeconds, 'number');
      assert.notEqual(statusAfter.node.pid, status.node.pid);
      assert.deepEqual(statusAfter.staged, []);
    } finally {
      await run;
    }
    const r = await run;
    assert.equal(r.exitCode, 3, `chainvisor exits with the v2 node's code:\n${r.stderr}`);
    assert.deepEqual(
      live.delivered().map((x) => [x.body.event, (x.body.upgrade as { name?: string } | null)?.name ?? null]),
      [
        ['upgrade-detected', 'v2'],
        ['upgrade-applied', 'v2'],
        ['node-exited', null],
      ],
    );
    for (const x of live.delivered()) assert.equal(typeof x.body.text, 'string');

    // Every log line is JSON; the stages carry their event name.
    const lines = r.stderr
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const events = lines.map((l) => l.event).filter((e) => e !== undefined);
    assert.deepEqual(
      events.filter((e) => e !== 'node-stopped'),
      ['node-started', 'upgrade-detected', 'upgrade-applied', 'node-started', 'node-exited'],
    );
    // The dead receivers' first failures came after the new node started: nothing waited for them.
    const v2Started = lines.findLastIndex((l) => l.event === 'node-started');
    // Log lines show a receiver's URL without its path (issue #31): the hanging one is told by its port.
    const deadShown = `${new URL(dead.url).origin}/…`;
    const firstTimeout = lines.findIndex((l) => l.url === deadShown && /webhook attempt failed|webhook not delivered/.test(String(l.msg)));
    assert.ok(dead.hung >= 1, 'the hanging receiver got a request');
    assert.ok(firstTimeout === -1 || firstTimeout > v2Started, 'the hanging receiver timed out only after the new node started');
    assert.ok(
      lines.some((l) => /^ECONNREFUSED: /.test(String(l.reason))),
      'the refusing receiver was tried (and retried in the background)',
    );
    assert.doesNotMatch(r.stderr, new RegExp(token), 'the token is never logged');
  });

  test('a failed upgrade: upgrade-failed reaches the receivers before chainvisor exits 79, with its log line', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit', afterMs: 50 } });
    await t.cliOk(['init', genesis]);
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 79, r.stderr);
    assert.deepEqual(
      live.delivered().map((x) => x.body.event),
      ['upgrade-detected', 'upgrade-failed'],
    );
    assert.match(String(live.delivered()[1]?.body.text), /upgrade "v2" at height 10 failed: .*not installed/);
    const failed = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.event === 'upgrade-failed');
    assert.equal(failed?.upgrade, 'v2');
    const doc = JSON.parse((await t.cliOk(['status', '--output', 'json'])).stdout);
    assert.equal(doc.lastUpgrade.result, 'failed', 'status remembers the failure after chainvisor exited');
    assert.deepEqual(doc.pending, { name: 'v2', height: 10, source: 'halt-file', blocksRemaining: null, binaryPresent: false, eta: null });
  });
});
