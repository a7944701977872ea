/** The HTTP endpoint (metrics, health, status), the generic webhook and the alert channels. */
import type { SettingSpec } from './spec.js';

export const observeSettings = {
  // Observability: HTTP endpoint (metrics, health, status) and webhooks.
  httpAddress: {
    env: 'CHAINVISOR_HTTP_ADDRESS',
    kind: 'string',
    default: '',
    description:
      'Serve `/metrics`, `/healthz` and `/status` on this `host:port`, for example `127.0.0.1:9102`; empty turns the endpoint off. A non-loopback address is allowed (a warning is logged when no token is set).',
  },
  httpToken: {
    env: 'CHAINVISOR_HTTP_TOKEN',
    kind: 'string',
    default: '',
    redact: 'secret',
    description: 'When set, every request to the endpoint must send `Authorization: Bearer <token>`; others get 401.',
  },
  webhookUrl: {
    env: 'CHAINVISOR_WEBHOOK_URL',
    kind: 'string',
    default: '',
    redact: 'urls',
    description:
      'One or more http(s) URLs, comma-separated, that receive a JSON POST for each upgrade event (see docs/monitoring.md); retried in the background, never delaying an upgrade.',
  },
  // Alert channels in each service's own API shape (issue #27, docs/monitoring.md).
  notifyEvents: {
    env: 'CHAINVISOR_NOTIFY_EVENTS',
    kind: 'string',
    default: 'all',
    description:
      'Which upgrade events reach the webhooks, Slack, Discord, Telegram and PagerDuty: `all`, or a comma list of event names (`upgrade-failed,upgrade-applied,…`; see docs/monitoring.md). PagerDuty resolves are always sent.',
  },
  slackWebhookUrl: {
    env: 'CHAINVISOR_SLACK_WEBHOOK_URL',
    kind: 'string',
    default: '',
    redact: 'secret',
    description: 'A Slack incoming-webhook URL (`https://hooks.slack.com/services/…`): each upgrade event is posted as a message. Empty turns Slack off.',
  },
  discordWebhookUrl: {
    env: 'CHAINVISOR_DISCORD_WEBHOOK_URL',
    kind: 'string',
    default: '',
    redact: 'secret',
    description: 'A Discord webhook URL (`https://discord.com/api/webhooks/<id>/<token>`): each upgrade event is posted as an embed. Empty turns Discord off.',
  },
  telegramBotToken: {
    env: 'CHAINVISOR_TELEGRAM_BOT_TOKEN',
    kind: 'string',
    default: '',
    redact: 'secret',
    description:
      "A Telegram bot's token (from @BotFather); with `CHAINVISOR_TELEGRAM_CHAT_ID`, each upgrade event is sent as a message. Empty turns Telegram off.",
  },
  telegramChatId: {
    env: 'CHAINVISOR_TELEGRAM_CHAT_ID',
    kind: 'string',
    default: '',
    description: 'The Telegram chat the bot writes to: a numeric id (`-1001234567890` for a group or channel) or `@channelname`.',
  },
  telegramApiUrl: {
    env: 'CHAINVISOR_TELEGRAM_API_URL',
    kind: 'string',
    default: 'https://api.telegram.org',
    redact: 'urls',
    description: 'The Telegram Bot API server, for a self-hosted one.',
  },
  pagerdutyRoutingKey: {
    env: 'CHAINVISOR_PAGERDUTY_ROUTING_KEY',
    kind: 'string',
    default: '',
    redact: 'secret',
    description:
      'A PagerDuty Events API v2 integration (routing) key: a failed upgrade, a node that exits or crash-loops, staging still failing near the height and a failed rehearsal page; the incident is resolved when the cause clears. Empty turns PagerDuty off.',
  },
  pagerdutyApiUrl: {
    env: 'CHAINVISOR_PAGERDUTY_API_URL',
    kind: 'string',
    default: 'https://events.pagerduty.com',
    redact: 'urls',
    description: 'The PagerDuty Events API server (`/v2/enqueue` is appended).',
  },
} as const satisfies Record<string, SettingSpec>;
