/**
 * Slack, Discord, Telegram and PagerDuty against local fake services (issue #27): each request's path
 * and JSON shape, the PagerDuty mapping (issue #26's events emitted on the bus directly), 429 waits,
 * CHAINVISOR_NOTIFY_EVENTS, delivery before close, and secrets kept out of every log line.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { startNotifications } from '../../../src/observe/delivery/index.js';
import { type NodeFacts, parseNotifySettings } from '../../../src/shared/alerts/index.js';
import { createEventBus, type EventName } from '../../../src/shared/events/index.js';
import { alertSecrets, type AlertServices, routingKey, startAlertServices, tooMany } from '../../support/alert-services.js';
import { memoryLogger } from '../../support/download-kit.js';
import { startFaultServer } from '../../support/fault-server.js';
import { waitFor } from '../../support/home.js';

const facts: NodeFacts = { chainId: 'testnet-7', node: 'val-1', home: '/home/node/.simapp' };
const v2 = { name: 'v2', height: 10 };

function settingsOf(env: Record<string, string>) {
  return parseNotifySettings({
    notifyEvents: env.CHAINVISOR_NOTIFY_EVENTS ?? 'all',
    slackWebhookUrl: env.CHAINVISOR_SLACK_WEBHOOK_URL ?? '',
    discordWebhookUrl: env.CHAINVISOR_DISCORD_WEBHOOK_URL ?? '',
    telegramBotToken: env.CHAINVISOR_TELEGRAM_BOT_TOKEN ?? '',
    telegramChatId: env.CHAINVISOR_TELEGRAM_CHAT_ID ?? '',
    telegramApiUrl: env.CHAINVISOR_TELEGRAM_API_URL ?? 'https://api.telegram.org',
    pagerdutyRoutingKey: env.CHAINVISOR_PAGERDUTY_ROUTING_KEY ?? '',
    pagerdutyApiUrl: env.CHAINVISOR_PAGERDUTY_API_URL ?? 'https://events.pagerduty.com',
  });
}

describe('alert channels', () => {
  let services: AlertServices;
  beforeEach(async () => {
    services = await startAlertServices();
  });
  afterEach(async () => {
    await services.close();
  });

  function start(env: Record<string, string> = services.env, extra: { backoffMs?: number } = {}) {
    const log = memoryLogger();
    const bus = createEventBus();
    const notify = startNotifications({ channels: settingsOf(env).channels, bus, logger: log.logger, facts, backoffMs: extra.backoffMs ?? 10 });
    return { bus, log, notify };
  }

  test('upgrade-scheduled and staging messages say when the height is expected (issue #35)', async () => {
    const log = memoryLogger();
    const bus = createEventBus();
    const at = Date.now();
    const eta = (height: number) => ({ at: new Date(at + height * 6000).toISOString(), seconds: height * 6, blockTimeSeconds: 6, basedOnBlocks: 500 });
    const notify = startNotifications({ channels: settingsOf(services.env).channels, bus, logger: log.logger, facts, backoffMs: 10, eta });
    bus.emit('upgrade-scheduled', { upgrade: { name: 'v2', height: 1920 }, text: 'upgrade "v2" scheduled on chain at height 1920' });
    bus.emit('staging-failed', { upgrade: { name: 'v2', height: 1920 }, text: 'staging the binary for upgrade "v2" failed' });
    bus.emit('upgrade-applied', { upgrade: { name: 'v2', height: 1920 }, text: 'upgrade "v2" applied' });
    await notify.close(10_000);
    const texts = services.delivered('slack').map((d) => String(d.body.text));
    assert.equal(texts.length, 3);
    const when = /; in about 3 h 12 min \(around \d\d:\d\d UTC; block time 6\.0 s over the last 500 blocks\)/;
    assert.match(texts[0] as string, when);
    assert.match(texts[1] as string, when);
    assert.doesNotMatch(texts[2] as string, /in about/, 'an applied upgrade has no "when"');
    const telegram = services.delivered('telegram').map((d) => String(d.body.text));
    assert.match(telegram[0] as string, /in about 3 h 12 min/);
  });

  test('each service receives its own API shape on its own path', async () => {
    const { bus, notify } = start();
    bus.emit('upgrade-failed', {
      upgrade: v2,
      text: 'upgrade "v2" at height 10 failed: binary <simd> & co not installed',
      data: { code: 'CHAINVISOR_BINARY_MISSING', hint: 'install it with add-upgrade' },
    });
    await notify.close(10_000);

    const [slack] = services.delivered('slack');
    assert.equal(typeof slack?.body.text, 'string');
    assert.match(String(slack?.body.text), /\[testnet-7 \/ val-1\] Upgrade v2 failed \(height 10\)/);
    assert.match(String(slack?.body.text), /&lt;simd&gt; &amp; co/, 'Slack escapes <, > and &');
    const blocks = slack?.body.blocks as Array<{ type: string; text?: { type: string; text: string } }>;
    assert.equal(blocks[0]?.type, 'section');
    assert.equal(blocks[0]?.text?.type, 'mrkdwn');
    assert.ok(blocks.some((b) => b.text?.text.includes('*What to do:* install it with add-upgrade')));

    const [discord] = services.delivered('discord');
    const embed = (discord?.body.embeds as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    assert.equal(embed.title, 'Upgrade v2 failed');
    assert.equal(embed.color, 0xe01e5a, 'red for a failed upgrade');
    assert.ok(!Number.isNaN(Date.parse(String(embed.timestamp))));
    assert.deepEqual(
      (embed.fields as Array<{ name: string; value: string }>).map((f) => [f.name, f.value]),
      [
        ['Chain', 'testnet-7'],
        ['Node', 'val-1'],
        ['Upgrade', 'v2'],
        ['Height', '10'],
      ],
    );
    assert.match(String(embed.description), /\*\*What to do:\*\* install it with add-upgrade/);

    const [telegram] = services.delivered('telegram');
    assert.equal(telegram?.body.chat_id, -1001234567890, 'a numeric chat id is a number');
    assert.equal(telegram?.body.parse_mode, 'HTML');
    assert.equal(telegram?.body.disable_web_page_preview, true);
    assert.match(String(telegram?.body.text), /<b>Upgrade v2 failed<\/b>/);
    assert.match(String(telegram?.body.text), /binary &lt;simd&gt; &amp; co not installed/, 'HTML escaped');

    const [page] = services.delivered('pagerduty');
    assert.equal(page?.path, '/v2/enqueue');
    assert.equal(page?.body.routing_key, routingKey);
    assert.equal(page?.body.event_action, 'trigger');
    assert.equal(page?.body.dedup_key, 'chainvisor/testnet-7/val-1/upgrade/v2');
    const payload = page?.body.payload as Record<string, unknown>;
    assert.equal(payload.severity, 'critical');
    assert.equal(payload.source, 'val-1');
    assert.ok(String(payload.summary).length <= 1024);
    assert.ok(!Number.isNaN(Date.parse(String(payload.timestamp))));
    assert.deepEqual((payload.custom_details as Record<string, unknown>).what_to_do, 'install it with add-upgrade');
  });

  test('PagerDuty pages only what needs a person, and resolves with the same key (issue #26 events included)', async () => {
    const { bus, notify } = start();
    const emit = (event: string, fields: { upgrade?: typeof v2; text: string; data?: Record<string, unknown> }) => bus.emit(event as EventName, fields);
    emit('upgrade-scheduled', { upgrade: v2, text: 'scheduled' });
    emit('staging-failed', { upgrade: v2, text: 'attempt 1 failed', data: { attempt: 1 } });
    emit('staging-failed', { upgrade: v2, text: 'still failing', data: { blocksLeft: 90 } });
    emit('binary-staged', { upgrade: v2, text: 'staged' });
    emit('rehearsal-failed', { upgrade: v2, text: 'rehearsal failed' });
    emit('upgrade-detected', { upgrade: v2, text: 'detected' });
    emit('network-waiting', { upgrade: v2, text: 'waiting for 2/3 of the voting power' });
    emit('upgrade-stalled', { upgrade: v2, text: 'no block for 10 min' });
    emit('validator-not-signing', { upgrade: v2, text: 'missed 20 blocks' });
    emit('upgrade-confirmed', { upgrade: v2, text: 'blocks are produced' });
    emit('node-exited', { text: 'restart 1', data: { code: 1, restarts: 1, restart: true } });
    emit('node-exited', { text: 'restart 3', data: { code: 1, restarts: 3, restart: true } });
    emit('node-exited', { text: 'exit 0', data: { code: 0, restarts: 0, restart: false } });
    await notify.close(10_000);
    const pages = services.delivered('pagerduty').map((r) => {
      const payload = r.body.payload as Record<string, unknown> | undefined;
      return [r.body.event_action, payload?.severity ?? null, payload?.class ?? null, r.body.dedup_key];
    });
    const key = 'chainvisor/testnet-7/val-1/upgrade/v2';
    assert.deepEqual(pages, [
      ['trigger', 'error', 'staging-failed', key],
      ['resolve', null, null, key],
      ['trigger', 'warning', 'rehearsal-failed', key],
      ['trigger', 'error', 'upgrade-stalled', key],
      ['trigger', 'error', 'validator-not-signing', key],
      ['resolve', null, null, key],
      ['trigger', 'critical', 'node-exited', 'chainvisor/testnet-7/val-1/node'],
    ]);
    const resolve = services.delivered('pagerduty')[1]?.body;
    assert.deepEqual(Object.keys(resolve ?? {}).sort(), ['dedup_key', 'event_action', 'routing_key']);
    // The chat channels get every event, the #26 ones included, in order.
    assert.deepEqual(
      services.delivered('slack').map((r) => /`([a-z-]+)`/.exec(JSON.stringify(r.body.blocks))?.[1]),
      [
        'upgrade-scheduled',
        'staging-failed',
        'staging-failed',
        'binary-staged',
        'rehearsal-failed',
        'upgrade-detected',
        'network-waiting',
        'upgrade-stalled',
        'validator-not-signing',
        'upgrade-confirmed',
        'node-exited',
        'node-exited',
        'node-exited',
      ],
    );
    assert.equal(services.delivered('telegram').length, 13);
    assert.equal(services.delivered('discord').length, 13);
  });

  test('PagerDuty pages key-in-use as critical, twin-unchecked only when it kept the node from starting (issue #32)', async () => {
    const { bus, notify } = start();
    const report = { state: 'key-in-use', checkedAt: 'x', rpc: 'https://***@rpc.example.com/?…', fromHeight: 1, toHeight: 50, seenHeight: 50, localHeight: 40 };
    bus.emit('twin-unchecked', { text: 'twin check not made: down; starting the node without it', data: { state: 'unchecked', refused: false } });
    bus.emit('twin-unchecked', {
      text: 'twin check not made: down; CHAINVISOR_TWIN_CHECK=require: the node is not started',
      data: { state: 'unchecked', refused: true },
    });
    bus.emit('key-in-use', { text: "this validator's key signed block 50 on the network", data: report });
    await notify.close(10_000);
    const pages = services.delivered('pagerduty').map((r) => {
      const payload = r.body.payload as Record<string, unknown>;
      return [payload.severity, payload.class, r.body.dedup_key];
    });
    assert.deepEqual(pages, [
      ['error', 'twin-unchecked', 'chainvisor/testnet-7/val-1/twin-check'],
      ['critical', 'key-in-use', 'chainvisor/testnet-7/val-1/key-in-use'],
    ]);
    const details = (services.delivered('pagerduty')[1]?.body.payload as { custom_details: Record<string, unknown> }).custom_details;
    assert.equal(details.seenHeight, 50);
    assert.match(String(details.what_to_do), /find the other machine running this validator's key/);
    assert.equal(services.delivered('slack').length, 3, 'chat gets both events');
  });

  test('a staged binary does not resolve a failed upgrade paged by this run; the upgrade applied does', async () => {
    const { bus, notify } = start();
    bus.emit('upgrade-failed', { upgrade: v2, text: 'failed', data: { code: 'CHAINVISOR_BINARY_MISSING' } });
    bus.emit('binary-staged', { upgrade: v2, text: 'staged' });
    bus.emit('upgrade-applied', { upgrade: v2, text: 'applied' });
    await notify.close(10_000);
    assert.deepEqual(
      services.delivered('pagerduty').map((r) => r.body.event_action),
      ['trigger', 'resolve'],
    );
  });

  test("a plan moved or cancelled on chain (issue #45): its title, the new height's ETA; neither pages, a cancel resolves all but a critical incident", async () => {
    const log = memoryLogger();
    const bus = createEventBus();
    const eta = (height: number) => ({ at: new Date(Date.now() + height * 6000).toISOString(), seconds: height * 6, blockTimeSeconds: 6, basedOnBlocks: 500 });
    const notify = startNotifications({ channels: settingsOf(services.env).channels, bus, logger: log.logger, facts, backoffMs: 10, eta });
    const v3 = { name: 'v3', height: 30 };
    bus.emit('staging-failed', { upgrade: v2, text: 'still failing', data: { blocksLeft: 90 } });
    bus.emit('upgrade-rescheduled', {
      upgrade: { name: 'v2', height: 1920 },
      text: 'upgrade "v2" moved on chain from height 10 to height 1920',
      data: { from: 10 },
    });
    bus.emit('upgrade-cancelled', { upgrade: { name: 'v2', height: 1920 }, text: 'upgrade "v2" at height 1920 was cancelled on chain' });
    bus.emit('checksum-disagreement', { upgrade: v3, text: 'sources disagree', data: { near: true } });
    bus.emit('upgrade-cancelled', { upgrade: v3, text: 'upgrade "v3" at height 30 was cancelled on chain' });
    await notify.close(10_000);

    const titles = services.delivered('discord').map((d) => (d.body.embeds as Array<{ title: string }>)[0]?.title);
    assert.deepEqual(titles, [
      'Upgrade v2: staging failed',
      'Upgrade v2 moved to height 1920',
      'Upgrade v2 cancelled on chain',
      "Upgrade v3: sources disagree on the binary's checksum",
      'Upgrade v3 cancelled on chain',
    ]);
    const slack = services.delivered('slack').map((d) => String(d.body.text));
    assert.match(slack[1] as string, /^\[testnet-7 \/ val-1\] Upgrade v2 moved to height 1920: .*from height 10 to height 1920; in about 3 h 12 min/);
    assert.doesNotMatch(slack[2] as string, /in about/, 'a cancelled height has no "when"');
    assert.match(slack[2] as string, /Upgrade v2 cancelled on chain \(height 1920\)/);
    const telegram = services.delivered('telegram').map((d) => String(d.body.text));
    assert.match(telegram[2] as string, /nothing is switched at its height/);

    const key = (name: string) => `chainvisor/testnet-7/val-1/upgrade/${name}`;
    assert.deepEqual(
      services.delivered('pagerduty').map((r) => [r.body.event_action, (r.body.payload as { class?: string } | undefined)?.class ?? null, r.body.dedup_key]),
      [
        ['trigger', 'staging-failed', key('v2')],
        ['resolve', null, key('v2')],
        ['trigger', 'checksum-disagreement', key('v3')],
      ],
      'the move pages nobody; the cancel resolves the staging failure, not the critical disagreement',
    );
  });

  test('a 429 waits as long as Discord and Telegram ask, then the message goes through', async () => {
    services.answers.discord = [tooMany('discord', 0.6)];
    services.answers.telegram = [tooMany('telegram', 1)];
    services.answers.slack = [tooMany('slack', 1)];
    const { bus, log, notify } = start(services.env, { backoffMs: 5 });
    const sentAt = Date.now();
    bus.emit('upgrade-applied', { upgrade: v2, text: 'applied' });
    await notify.close(10_000);
    const gap = (service: 'discord' | 'telegram' | 'slack') => {
      const [first, second] = services.requests.filter((r) => r.service === service);
      assert.equal(first?.status, 429);
      assert.ok(second && second.status < 300, `${service} delivered after its 429`);
      return second.at - first.at;
    };
    assert.ok(gap('discord') >= 550, `Discord's retry_after (0.6 s) was waited: ${gap('discord')} ms`);
    assert.ok(gap('telegram') >= 950, `Telegram's parameters.retry_after (1 s) was waited: ${gap('telegram')} ms`);
    assert.ok(gap('slack') >= 950, `Slack's Retry-After (1 s) was waited: ${gap('slack')} ms`);
    assert.ok(Date.now() - sentAt < 5000);
    assert.doesNotMatch(log.text(), /not delivered/);
  });

  test('other failures are retried a bounded number of times, then logged once, without a secret', async () => {
    services.answers.telegram = Array.from({ length: 10 }, () => ({ status: 500, body: `oops for bot${services.telegramToken}` }));
    services.answers.slack = [{ status: 404, body: 'no_service' }];
    const log = memoryLogger();
    const bus = createEventBus();
    const notify = startNotifications({ channels: settingsOf(services.env).channels, bus, logger: log.logger, facts, backoffMs: 5, attempts: 3 });
    bus.emit('upgrade-applied', { upgrade: v2, text: 'applied' });
    await notify.close(10_000);
    assert.equal(services.requests.filter((r) => r.service === 'telegram').length, 3, 'three attempts');
    assert.equal(services.requests.filter((r) => r.service === 'slack').length, 1, 'a 404 is not retried');
    const given = log.lines().filter((l) => /giving up/.test(String(l.msg)));
    assert.deepEqual(given.map((l) => l.channel).sort(), ['slack', 'telegram'], 'logged once per channel');
    for (const secret of alertSecrets) assert.ok(!log.text().includes(secret), `${secret} is not in the log`);
    assert.match(log.text(), /HTTP 500: oops for bot\*\*\*/);
  });

  test('an answer that never ends is read no further than 16 KiB: delivered, its connection closed (issue #31)', async (t) => {
    const server = await startFaultServer();
    t.after(() => server.close());
    server.route('/services/T000/B000/slacksecret42', { always: { kind: 'endless' } });
    const log = memoryLogger();
    const bus = createEventBus();
    const env = { CHAINVISOR_SLACK_WEBHOOK_URL: server.url('/services/T000/B000/slacksecret42') };
    const notify = startNotifications({ channels: settingsOf(env).channels, bus, logger: log.logger, facts, backoffMs: 5 });
    bus.emit('upgrade-applied', { upgrade: v2, text: 'applied' });
    await waitFor(() => server.cut === 1, 'the endless answer cut by chainvisor');
    await notify.close(10_000);
    assert.equal(server.requests.length, 1, 'delivered at the first attempt');
    assert.doesNotMatch(log.text(), /not delivered/);
  });

  test('an error page that echoes the path, raw or percent-decoded, shows no token; nor do credentials of an API server (issue #31)', async (t) => {
    const server = await startFaultServer();
    t.after(() => server.close());
    server.route('/services/T000/B000/%73lacksecret42', { always: { kind: 'echo', status: 404 } });
    server.route('/api/webhooks/1234/discordsecret42', { always: { kind: 'echo', status: 400 } });
    server.route(`/tg/bot${telegramTokenLike}/sendMessage`, { always: { kind: 'echo', status: 401 } });
    const env = {
      CHAINVISOR_SLACK_WEBHOOK_URL: server.url('/services/T000/B000/%73lacksecret42'),
      CHAINVISOR_DISCORD_WEBHOOK_URL: server.url('/api/webhooks/1234/discordsecret42'),
      CHAINVISOR_TELEGRAM_BOT_TOKEN: telegramTokenLike,
      CHAINVISOR_TELEGRAM_CHAT_ID: '@validators',
      CHAINVISOR_TELEGRAM_API_URL: server.url('/tg').replace('http://', 'http://tgops:tgpass42@'),
    };
    const log = memoryLogger();
    const bus = createEventBus();
    const notify = startNotifications({ channels: settingsOf(env).channels, bus, logger: log.logger, facts, backoffMs: 5 });
    bus.emit('upgrade-applied', { upgrade: v2, text: 'applied' });
    await notify.close(10_000);
    const reasons = log.lines().filter((l) => /giving up/.test(String(l.msg)));
    assert.equal(reasons.length, 3, log.text());
    assert.match(log.text(), /HTTP 404: <html><body>Cannot POST \/services\/\*\*\* \(\/services\/\*\*\*\)/);
    assert.doesNotMatch(log.text(), /slacksecret42|%73lacksecret42|discordsecret42|abc_DEF-ghi|tgpass42|T000|B000/);
    const telegram = server.requestsTo(`/tg/bot${telegramTokenLike}/sendMessage`)[0];
    assert.equal(telegram?.authorization, `Basic ${Buffer.from('tgops:tgpass42').toString('base64')}`, "the API server's credentials are sent");
  });

  test('a 429 with a Retry-After that is negative, not a number or huge, and a 429 that never ends: bounded waits and attempts (issue #31)', async () => {
    services.answers.slack = [{ status: 429, body: 'rate_limited', headers: { 'retry-after': '-5' } }];
    services.answers.discord = [{ status: 429, body: JSON.stringify({ retry_after: 'soon' }), headers: { 'content-type': 'application/json' } }];
    services.answers.telegram = [tooMany('telegram', 1e12)];
    services.answers.pagerduty = Array.from({ length: 20 }, () => tooMany('pagerduty', 0));
    const log = memoryLogger();
    const bus = createEventBus();
    const notify = startNotifications({
      channels: settingsOf(services.env).channels,
      bus,
      logger: log.logger,
      facts,
      backoffMs: 5,
      attempts: 4,
      maxRetryAfterMs: 50,
    });
    bus.emit('upgrade-failed', { upgrade: v2, text: 'failed' });
    await notify.close(10_000);
    for (const service of ['slack', 'discord', 'telegram'] as const) assert.equal(services.delivered(service).length, 1, `${service} delivered after its 429`);
    assert.equal(services.requests.filter((r) => r.service === 'pagerduty').length, 4, 'a 429 loop ends after the attempts');
    assert.match(log.text(), /pagerduty: message not delivered; giving up on it/);
  });

  test('CHAINVISOR_NOTIFY_EVENTS narrows every channel; PagerDuty still resolves', async () => {
    const { bus, notify } = start({ ...services.env, CHAINVISOR_NOTIFY_EVENTS: 'upgrade-failed, upgrade-applied' });
    bus.emit('upgrade-detected', { upgrade: v2, text: 'detected' });
    bus.emit('rehearsal-failed', { upgrade: v2, text: 'rehearsal failed' });
    bus.emit('upgrade-applied', { upgrade: v2, text: 'applied' });
    await notify.close(10_000);
    for (const service of ['slack', 'discord', 'telegram'] as const) assert.equal(services.delivered(service).length, 1, service);
    assert.deepEqual(
      services.delivered('pagerduty').map((r) => r.body.event_action),
      ['resolve'],
      'the rehearsal is not paged; the resolve is sent',
    );
    assert.throws(
      () => settingsOf({ CHAINVISOR_NOTIFY_EVENTS: 'upgrade-failed,upgrade-exploded' }),
      /CHAINVISOR_NOTIFY_EVENTS.*unknown event upgrade-exploded/s,
    );
  });

  test('close delivers what is queued before returning, within its limit', async () => {
    services.delayMs = 200;
    const { bus, notify } = start();
    for (let i = 0; i < 3; i++) bus.emit('upgrade-detected', { upgrade: v2, text: `detected ${i}` });
    bus.emit('upgrade-failed', { upgrade: v2, text: 'failed' });
    await notify.close(5000);
    assert.equal(services.delivered('slack').length, 4);
    assert.equal(services.delivered('pagerduty').length, 1);

    services.delayMs = 3000;
    const slow = start();
    slow.bus.emit('upgrade-failed', { upgrade: v2, text: 'failed' });
    slow.bus.emit('upgrade-applied', { upgrade: v2, text: 'applied' });
    const began = Date.now();
    await slow.notify.close(500);
    assert.ok(Date.now() - began < 2000, 'a slow service does not hold the exit past the limit');
    assert.match(slow.log.text(), /not delivered before exit/);
  });

  test('messages stay within each service limit, cut cleanly', async () => {
    const { bus, notify } = start();
    const long = `${'x'.repeat(2000)}<&>${'é'.repeat(9000)}😀`.repeat(2);
    bus.emit('upgrade-failed', { upgrade: v2, text: long, data: { hint: 'h'.repeat(5000) } });
    await notify.close(10_000);
    const text = String(services.delivered('telegram')[0]?.body.text);
    assert.ok(text.length <= 4096, `telegram ${text.length}`);
    assert.match(text, /<\/i>$/, 'the closing tags survive the cut');
    assert.doesNotMatch(text, /&[a-z]*…/, 'no entity cut in half');
    const embed = (services.delivered('discord')[0]?.body.embeds as Array<Record<string, string>>)[0] as Record<string, string>;
    assert.ok(String(embed.description).length <= 4096);
    assert.ok(String(services.delivered('discord')[0]?.body.content).length <= 2000);
    assert.ok(String(services.delivered('slack')[0]?.body.text).length <= 3000);
    const payload = services.delivered('pagerduty')[0]?.body.payload as Record<string, string>;
    assert.ok(payload.summary !== undefined && payload.summary.length <= 1024);
  });

  test('settings: Telegram needs both token and chat; a bad URL is refused without repeating the secret', () => {
    assert.throws(() => settingsOf({ CHAINVISOR_TELEGRAM_BOT_TOKEN: telegramTokenLike }), /CHAINVISOR_TELEGRAM_CHAT_ID: is needed/);
    assert.throws(
      () => settingsOf({ CHAINVISOR_SLACK_WEBHOOK_URL: 'hooks.slack.com/services/T0/B0/topsecret' }),
      (error: Error) => /CHAINVISOR_SLACK_WEBHOOK_URL: is not a URL/.test(error.message) && !error.message.includes('topsecret'),
    );
    assert.deepEqual(
      settingsOf({
        CHAINVISOR_TELEGRAM_BOT_TOKEN: telegramTokenLike,
        CHAINVISOR_TELEGRAM_CHAT_ID: '@validators',
        CHAINVISOR_TELEGRAM_API_URL: 'http://127.0.0.1:1/tg',
      }).channels.map((c) => c.url.pathname),
      [`/tg/bot${telegramTokenLike}/sendMessage`],
    );
  });
});

const telegramTokenLike = '42:abc_DEF-ghi';
