import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { parseWebhookTargets, payloadOf, startWebhooks } from '../../../src/observe/delivery/index.js';
import { createEventBus } from '../../../src/shared/events/index.js';
import { memoryLogger } from '../../support/download-kit.js';
import { startFaultServer } from '../../support/fault-server.js';
import { waitFor } from '../../support/home.js';
import { startProxyServer } from '../../support/proxy-server.js';
import { refusedUrl, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

describe('webhooks', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  test('notable events are POSTed in order with the documented shape; other events are not sent', async () => {
    const bus = createEventBus();
    const log = memoryLogger();
    const hooks = startWebhooks({ targets: parseWebhookTargets(receiver.url), bus, logger: log.logger, host: 'val-1' });
    const upgrade = { name: 'v2', height: 10 };
    bus.emit('upgrade-scheduled', { upgrade, text: 'upgrade "v2" scheduled at height 10' });
    bus.emit('node-started', { text: 'not a webhook' });
    bus.emit('upgrade-detected', { upgrade, text: 'two\nlines' });
    bus.emit('upgrade-applied', { upgrade, text: 'applied' });
    bus.emit('node-exited', { text: 'node exited (code 3)' });
    await hooks.close(10_000);
    assert.deepEqual(
      receiver.received.map((r) => r.body.event),
      ['upgrade-scheduled', 'upgrade-detected', 'upgrade-applied', 'node-exited'],
    );
    const first = receiver.received[0]?.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(first).sort(), ['event', 'host', 'text', 'time', 'upgrade']);
    assert.deepEqual(first.upgrade, upgrade);
    assert.equal(first.host, 'val-1');
    assert.ok(!Number.isNaN(Date.parse(first.time as string)));
    assert.equal(receiver.received[1]?.body.text, 'two lines', 'text is one line');
    assert.equal(receiver.received[3]?.body.upgrade, null);
  });

  test('a failing answer is retried with backoff, and the order is kept', async () => {
    receiver.answers = [503, 500];
    const bus = createEventBus();
    const hooks = startWebhooks({ targets: parseWebhookTargets(receiver.url), bus, logger: memoryLogger().logger, backoffMs: 10 });
    bus.emit('upgrade-detected', { upgrade: { name: 'v2', height: 10 }, text: 'a' });
    bus.emit('upgrade-applied', { upgrade: { name: 'v2', height: 10 }, text: 'b' });
    await hooks.close(10_000);
    assert.deepEqual(
      receiver.delivered().map((r) => r.body.event),
      ['upgrade-detected', 'upgrade-applied'],
    );
    assert.deepEqual(
      receiver.received.map((r) => r.status),
      [503, 500, 200, 200],
      'retried until accepted',
    );
  });

  test('a receiver that never answers or refuses neither blocks emit nor the other receivers', async () => {
    const hanging = await startWebhookReceiver();
    hanging.always = 'hang';
    try {
      const bus = createEventBus();
      const log = memoryLogger();
      const targets = parseWebhookTargets(`${hanging.url},${await refusedUrl()},${receiver.url}`);
      const hooks = startWebhooks({ targets, bus, logger: log.logger, timeoutMs: 200, backoffMs: 50, attempts: 2 });
      const before = Date.now();
      bus.emit('upgrade-detected', { upgrade: { name: 'v2', height: 10 }, text: 'a' });
      bus.emit('upgrade-applied', { upgrade: { name: 'v2', height: 10 }, text: 'b' });
      assert.ok(Date.now() - before < 100, 'emit returns at once');
      await waitFor(() => receiver.received.length === 2, 'the live receiver got both events');
      await hooks.close(5000);
      assert.match(log.text(), /webhook not delivered/);
    } finally {
      await hanging.close();
    }
  });

  test('credentials in a webhook URL are sent but never logged', async () => {
    const url = receiver.url.replace('http://', 'http://user:s3cret@') + '?token=hush';
    receiver.always = 400;
    const bus = createEventBus();
    const log = memoryLogger();
    const targets = parseWebhookTargets(url);
    assert.equal(targets[0]?.shown.includes('s3cret'), false);
    const hooks = startWebhooks({ targets, bus, logger: log.logger, attempts: 1 });
    bus.emit('upgrade-failed', { upgrade: { name: 'v2', height: 10 }, text: 'failed' });
    await hooks.close(5000);
    assert.equal(receiver.received[0]?.authorization, `Basic ${Buffer.from('user:s3cret').toString('base64')}`);
    assert.match(log.text(), /webhook not delivered/);
    assert.doesNotMatch(log.text(), /s3cret|hush/);
  });

  test('webhooks go through HTTP_PROXY like downloads; a 407 is reported without the credentials', async () => {
    const port = new URL(receiver.url).port;
    const proxy = await startProxyServer({ hosts: { 'hooks.example.test': '127.0.0.1' } });
    const locked = await startProxyServer({ hosts: { 'hooks.example.test': '127.0.0.1' }, credentials: 'ops:right' });
    try {
      const bus = createEventBus();
      const remote = `http://hooks.example.test:${port}${new URL(receiver.url).pathname}`;
      const hooks = startWebhooks({ targets: parseWebhookTargets(remote), bus, logger: memoryLogger().logger, env: { http_proxy: proxy.hostPort } });
      bus.emit('upgrade-applied', { upgrade: { name: 'v2', height: 10 }, text: 'applied' });
      await hooks.close(5000);
      assert.deepEqual(
        receiver.delivered().map((r) => r.body.event),
        ['upgrade-applied'],
      );
      assert.deepEqual(
        proxy.requests.map((r) => r.method),
        ['POST'],
      );

      const log = memoryLogger();
      const refused = startWebhooks({
        targets: parseWebhookTargets(remote),
        bus,
        logger: log.logger,
        attempts: 3,
        backoffMs: 10,
        env: { HTTP_PROXY: locked.url.replace('http://', 'http://ops:hunter2@') },
      });
      bus.emit('upgrade-failed', { upgrade: { name: 'v2', height: 10 }, text: 'failed' });
      await refused.close(5000);
      assert.equal(locked.requests.length, 1, 'a 407 is not retried');
      assert.match(log.text(), /407 Proxy Authentication Required/);
      assert.doesNotMatch(log.text(), /hunter2/);
    } finally {
      await proxy.close();
      await locked.close();
    }
  });

  test('a 200 whose body never ends: delivered, and its connection closed at once instead of read for ever (issue #31)', async (t) => {
    const server = await startFaultServer();
    t.after(() => server.close());
    server.route('/hook', { always: { kind: 'endless' } });
    const bus = createEventBus();
    const log = memoryLogger();
    const hooks = startWebhooks({ targets: parseWebhookTargets(server.url('/hook')), bus, logger: log.logger, attempts: 1 });
    bus.emit('upgrade-applied', { upgrade: { name: 'v2', height: 10 }, text: 'applied' });
    await waitFor(() => server.cut === 1, 'the endless answer cut by chainvisor');
    await hooks.close(5000);
    assert.match(log.text(), /webhook delivered/);
  });

  test('a receiver URL is shown without its path tokens; a password with a bad %-escape is refused at start (issue #31)', () => {
    const [slackLike] = parseWebhookTargets('https://hooks.example/services/T0/B0/SECRET');
    assert.equal(slackLike?.shown, 'https://hooks.example/services/…');
    const [v6] = parseWebhookTargets('http://ops:pw@[::1]:9000/hook/abc?token=x');
    assert.equal(v6?.shown, 'http://***@[::1]:9000/hook/…');
    assert.throws(
      () => parseWebhookTargets('https://ok.example/a, https://ops:100%zz@hooks.example/x'),
      (error: Error & { code?: string; exitCode?: number }) =>
        error.code === 'CHAINVISOR_WEBHOOK_URL_INVALID' &&
        error.exitCode === 78 &&
        /% that does not start an escape/.test(error.message) &&
        !error.message.includes('100%zz'),
    );
  });

  test('an entry that is not an http(s) URL is a configuration error', () => {
    assert.throws(() => parseWebhookTargets('https://ok.example/a, ftp://x.example/'), { code: 'CHAINVISOR_WEBHOOK_URL_INVALID', exitCode: 78 });
    assert.throws(() => parseWebhookTargets('not a url'), { code: 'CHAINVISOR_WEBHOOK_URL_INVALID' });
    assert.deepEqual(parseWebhookTargets(''), []);
  });
});

test("the after-upgrade events' webhook bodies carry the follow's fields at the top level, beside event, upgrade and text", () => {
  const bus = createEventBus();
  const data = {
    upgrade: 'v2',
    state: 'confirmed',
    height: 100,
    round: null,
    prevoteRatio: null,
    precommitRatio: null,
    ownPrevote: true,
    signed: true,
    seconds: 4.2,
    since: 'x',
    noticedMs: 310,
  };
  const event = bus.emit('upgrade-confirmed', { upgrade: { name: 'v2', height: 100 }, text: 'v2: confirmed', data });
  const body = payloadOf(event, 'val-1') as unknown as Record<string, unknown>;
  assert.equal(body.event, 'upgrade-confirmed');
  assert.deepEqual(body.upgrade, { name: 'v2', height: 100 });
  assert.equal(body.text, 'v2: confirmed');
  assert.equal(body.signed, true);
  assert.equal(body.seconds, 4.2);
  assert.equal(body.state, 'confirmed');
  assert.equal(body.noticedMs, undefined, 'only the documented fields');
  // Other events keep their shape.
  const applied = payloadOf(bus.emit('upgrade-applied', { upgrade: { name: 'v2', height: 100 }, text: 'a', data: { dir: 'upgrades/v2', ms: 3 } }), 'h');
  assert.deepEqual(Object.keys(applied).sort(), ['event', 'host', 'text', 'time', 'upgrade']);
});

test('key-in-use and twin-unchecked bodies carry the twin check under `twinCheck` (issue #32)', () => {
  const bus = createEventBus();
  const report = {
    state: 'key-in-use',
    checkedAt: 'x',
    rpc: 'http://***@h/?…',
    fromHeight: 1,
    toHeight: 9,
    seenHeight: 9,
    localHeight: 3,
    address: 'AB',
    during: 'start',
  };
  const body = payloadOf(bus.emit('key-in-use', { text: 'key in use', data: report }), 'val-1') as unknown as Record<string, unknown>;
  assert.equal(body.upgrade, null);
  const { during: _during, ...documented } = report;
  assert.deepEqual(body.twinCheck, { ...documented, reason: undefined });
  assert.equal(JSON.parse(JSON.stringify(body)).twinCheck.reason, undefined);
});

test('a plan moved or replaced on chain (issue #45): the old height as `from`, the plan in its place as `replacedBy`', () => {
  const bus = createEventBus();
  const moved = payloadOf(bus.emit('upgrade-rescheduled', { upgrade: { name: 'v2', height: 150 }, text: 'moved', data: { from: 100, info: '{}' } }), 'h');
  assert.equal(moved.from, 100);
  assert.deepEqual(moved.upgrade, { name: 'v2', height: 150 });
  assert.equal('info' in moved, false, 'the Info stays out: the chain has it');
  const replaced = payloadOf(
    bus.emit('upgrade-cancelled', { upgrade: { name: 'v2', height: 150 }, text: 'replaced', data: { replacedBy: { name: 'v3', height: 200 } } }),
    'h',
  );
  assert.deepEqual(replaced.replacedBy, { name: 'v3', height: 200 });
  const cancelled = payloadOf(bus.emit('upgrade-cancelled', { upgrade: { name: 'v2', height: 150 }, text: 'cancelled' }), 'h');
  assert.deepEqual(Object.keys(cancelled).sort(), ['event', 'host', 'text', 'time', 'upgrade']);
});
