/** The HTTP endpoint (metrics, health, status), the generic webhook and the alert channels (each channel's own in its file: shared/alerts/). */
import { alertSettings, channelTitles } from '../../shared/alerts/index.js';
import type { SettingSpec } from '../../shared/setting-spec.js';

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
  // Alert channels in each service's own API shape (issue #27, docs/monitoring.md), one file each (issue #33).
  notifyEvents: {
    env: 'CHAINVISOR_NOTIFY_EVENTS',
    kind: 'string',
    default: 'all',
    description: `Which upgrade events reach the webhooks, ${channelTitles()}: \`all\`, or a comma list of event names (\`upgrade-failed,upgrade-applied,…\`; see docs/monitoring.md). PagerDuty resolves are always sent.`,
  },
  ...alertSettings,
} as const satisfies Record<string, SettingSpec>;
