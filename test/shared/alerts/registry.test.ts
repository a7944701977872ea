/**
 * A new alert channel is one file and one row (issue #33): each channel of the registry lives in
 * src/alerts/<name>.ts, its settings are named in no other file of src/ (config, the command line
 * and `notify` read the registry), config lists them in the registry's order, and what turns each
 * channel on is read from it.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { settingKeys, settings } from '../../../src/config/index.js';
import { alertChannels, alertSettings, anyChannelOn, channelSwitches, channelTitles, parseNotifySettings } from '../../../src/shared/alerts/index.js';

const srcDir = fileURLToPath(new URL('../../../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

test('each channel is one file: its settings (key or variable) are named in no other file of src/', () => {
  const files = sourceFiles(srcDir);
  assert.ok(files.length > 150, `only ${files.length} source files under ${srcDir}`);
  for (const channel of alertChannels) {
    const own = path.join(srcDir, 'shared', 'alerts', `${channel.name}.ts`);
    assert.ok(existsSync(own), `${channel.name} has no file of its own`);
    const names = Object.entries(channel.settings).flatMap(([key, spec]) => [key, spec.env]);
    for (const file of files) {
      if (file === own) continue;
      const text = readFileSync(file, 'utf8');
      const named = names.filter((name) => new RegExp(`\\b${name}\\b`).test(text));
      assert.deepEqual(named, [], `${path.relative(srcDir, file)} names ${channel.name}'s settings`);
    }
  }
});

test("config lists every channel's settings, as the channel declares them, in the registry's order, after CHAINVISOR_NOTIFY_EVENTS", () => {
  const channelKeys = alertChannels.flatMap((channel) => Object.keys(channel.settings));
  assert.deepEqual(Object.keys(alertSettings), channelKeys);
  const from = settingKeys.indexOf('notifyEvents') + 1;
  assert.deepEqual(settingKeys.slice(from, from + channelKeys.length), channelKeys);
  for (const channel of alertChannels)
    for (const [key, spec] of Object.entries(channel.settings)) assert.equal(settings[key as keyof typeof settings], spec, key);
  assert.match(settings.notifyEvents.description, /reach the webhooks, Slack, Discord, Telegram and PagerDuty: /);
  assert.equal(channelTitles(), 'Slack, Discord, Telegram and PagerDuty');
});

test('what turns each channel on is its switch: alone it turns the channel (and the proxy check) on', () => {
  assert.equal(anyChannelOn({}), false);
  assert.deepEqual(parseNotifySettings({}).channels, []);
  const alone: Record<string, Record<string, string>> = {
    slack: { slackWebhookUrl: 'https://hooks.example/services/T0/B0/x' },
    discord: { discordWebhookUrl: 'https://discord.example/api/webhooks/1/x' },
    telegram: { telegramBotToken: '42:abc', telegramChatId: '@validators' },
    pagerduty: { pagerdutyRoutingKey: 'r0' },
  };
  assert.deepEqual(
    Object.keys(alone),
    alertChannels.map((channel) => channel.name),
  );
  for (const channel of alertChannels) {
    assert.equal(anyChannelOn({ [channel.switch]: 'x' }), true, channel.name);
    assert.deepEqual(
      parseNotifySettings(alone[channel.name] ?? {}).channels.map((c) => c.name),
      [channel.name],
    );
  }
  assert.equal(
    channelSwitches(),
    'CHAINVISOR_SLACK_WEBHOOK_URL, CHAINVISOR_DISCORD_WEBHOOK_URL, CHAINVISOR_TELEGRAM_BOT_TOKEN, CHAINVISOR_PAGERDUTY_ROUTING_KEY',
  );
});
