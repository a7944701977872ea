import { alertChannels, channelSwitches, parseNotifySettings } from '../../shared/alerts/index.js';
import { ConfigError, ExitCode } from '../../shared/errors/index.js';
import { defineCommand, writeLine } from '../command.js';
import { loadContextConfig } from '../settings.js';

const titleWidth = Math.max(...alertChannels.map((channel) => channel.title.length));

export const notifyCommand = defineCommand({
  args: { options: { test: { type: 'boolean', required: true, help: 'send the test messages (required: without it, nothing is sent)' } } },
  help: [
    'Sends one test message to each alert channel that is configured, and prints for each one whether',
    'it was delivered or what the service answered. Exit 0 when every channel took its message, 79 when',
    'one did not, 78 when none is configured or a setting is invalid. The channels, and what turns each on:',
    ...alertChannels.map((channel) => `  ${channel.title.padEnd(titleWidth)}  ${channel.help}`),
    `  ${'Webhook'.padEnd(titleWidth)}  CHAINVISOR_WEBHOOK_URL (each URL gets the JSON payload, "event": "notify-test")`,
  ].join('\n'),
  async run(ctx) {
    const { config } = loadContextConfig(ctx);
    const { parseWebhookTargets, readNodeFacts, sendTestNotices, webhookChannels } = await import('../../observe/index.js');
    // The generic webhook is a channel like the others here: its receivers get the test too.
    const channels = [...parseNotifySettings(config).channels, ...webhookChannels(parseWebhookTargets(config.webhookUrl))];
    if (channels.length === 0) {
      throw new ConfigError([
        { setting: `${channelSwitches()}, CHAINVISOR_WEBHOOK_URL`, message: 'no alert channel is configured; set at least one (docs/monitoring.md)' },
      ]);
    }
    // A genesis of gigabytes whose chain_id comes after app_state: a test message waits for it 10 s at most
    // (the chain id then comes from client.toml, if it names one).
    const facts = await readNodeFacts(config.home, undefined, AbortSignal.timeout(10_000));
    const results = await sendTestNotices(channels, { facts, env: ctx.env });
    const width = Math.max(...results.map((r) => r.channel.length));
    for (const { channel, answer } of results) {
      writeLine(ctx.stdout, `${channel.padEnd(width)}  ${answer.ok ? 'delivered' : `not delivered: ${answer.reason}`}`);
    }
    return results.every((r) => r.answer.ok) ? ExitCode.ok : ExitCode.upgradeFailed;
  },
});
