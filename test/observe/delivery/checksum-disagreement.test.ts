/**
 * `checksum-disagreement` (issue #34) on every alert channel: Slack, Discord and Telegram get it with
 * each source's value and what to do; PagerDuty pages `error` days ahead and `critical` once the height
 * is CHAINVISOR_STAGE_WARN_BLOCKS away or nearer (`near`, set by the staging that found it).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { startNotifications } from '../../../src/observe/delivery/index.js';
import { type NodeFacts, parseNotifySettings } from '../../../src/shared/alerts/index.js';
import { createEventBus } from '../../../src/shared/events/index.js';
import { type AlertServices, startAlertServices } from '../../support/alert-services.js';
import { memoryLogger } from '../../support/download-kit.js';

const facts: NodeFacts = { chainId: 'testnet-7', node: 'val-1', home: '/home/node/.simapp' };
const v2 = { name: 'v2', height: 1000 };
const text = `the sources of upgrade "v2" disagree on the checksum of the linux/amd64 binary: plan gives sha256:${'a'.repeat(64)}; registry gives sha256:${'b'.repeat(64)}; nothing is installed from either`;

describe('checksum-disagreement on the alert channels', () => {
  let services: AlertServices;
  beforeEach(async () => {
    services = await startAlertServices();
  });
  afterEach(async () => {
    await services.close();
  });

  test('chat channels get it; PagerDuty pages error days ahead, critical near the height', async () => {
    const env = services.env;
    const { channels } = parseNotifySettings({
      notifyEvents: 'all',
      slackWebhookUrl: env.CHAINVISOR_SLACK_WEBHOOK_URL ?? '',
      discordWebhookUrl: env.CHAINVISOR_DISCORD_WEBHOOK_URL ?? '',
      telegramBotToken: env.CHAINVISOR_TELEGRAM_BOT_TOKEN ?? '',
      telegramChatId: env.CHAINVISOR_TELEGRAM_CHAT_ID ?? '',
      telegramApiUrl: env.CHAINVISOR_TELEGRAM_API_URL ?? '',
      pagerdutyRoutingKey: env.CHAINVISOR_PAGERDUTY_ROUTING_KEY ?? '',
      pagerdutyApiUrl: env.CHAINVISOR_PAGERDUTY_API_URL ?? '',
    });
    const bus = createEventBus();
    const notify = startNotifications({ channels, bus, logger: memoryLogger().logger, facts, backoffMs: 10 });
    const sources = [
      { source: 'plan', checksum: `sha256:${'a'.repeat(64)}` },
      { source: 'registry', checksum: `sha256:${'b'.repeat(64)}` },
    ];
    bus.emit('checksum-disagreement', { upgrade: v2, text, data: { sources, platform: 'linux/amd64', near: false, blocksLeft: 900 } });
    bus.emit('checksum-disagreement', { upgrade: v2, text, data: { sources, platform: 'linux/amd64', near: true, blocksLeft: 50 } });
    await notify.close(10_000);

    const pages = services.delivered('pagerduty').map((r) => (r.body.payload as Record<string, unknown>).severity);
    assert.deepEqual(pages, ['error', 'critical']);
    const details = (services.delivered('pagerduty')[0]?.body.payload as Record<string, unknown>).custom_details as Record<string, unknown>;
    assert.deepEqual(details.sources, sources);
    const slack = JSON.stringify(services.delivered('slack')[0]?.body);
    assert.match(slack, /sources disagree on the binary's checksum/);
    assert.match(slack, /plan gives sha256:a{64}; registry gives sha256:b{64}/);
    assert.match(slack, /check-plan --upgrade/);
    assert.equal(services.delivered('discord').length, 2);
    assert.match(String(services.delivered('telegram')[0]?.body.text), /registry gives sha256:b{64}/);
  });
});
