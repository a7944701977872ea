/**
 * The alert channels the settings turn on (issue #27): Slack, Discord, Telegram and PagerDuty, each
 * with its URL, the secrets it must never show, and how it renders a notice. Checked when `run` starts
 * and by `chainvisor config`, every problem at once: a typo stops chainvisor (exit 78) instead of
 * silently paging nobody on the night of the upgrade. No problem message repeats a secret: a webhook
 * URL is never shown, an API server's only as shared/redact.ts shows a receiver's (no credentials, no
 * path tokens). Each channel keeps the fragments of its secrets an answer might echo (`secretsOf`:
 * path tokens, credentials, the bot token and its secret half, the routing key).
 */
import type { Config } from '../../config/index.js';
import { ConfigError, type ConfigProblem } from '../../shared/errors/index.js';
import { splitCredentials } from '../../shared/net/index.js';
import { redactSecretUrl, secretsOf } from '../../shared/redact.js';
import { discordBody } from './discord.js';
import type { NodeFacts } from './node-facts.js';
import { chatEvents, type Notice, testEvent } from './notice.js';
import { createPager, dedupKey, pagerdutyBody } from './pagerduty.js';
import { slackBody } from './slack.js';
import { telegramBody } from './telegram.js';

export type ChannelName = 'slack' | 'discord' | 'telegram' | 'pagerduty';

export type ChannelSettings = Pick<
  Config,
  | 'notifyEvents'
  | 'slackWebhookUrl'
  | 'discordWebhookUrl'
  | 'telegramBotToken'
  | 'telegramChatId'
  | 'telegramApiUrl'
  | 'pagerdutyRoutingKey'
  | 'pagerdutyApiUrl'
>;

export interface Channel {
  name: ChannelName;
  url: URL;
  /** Fragments that must never reach a log line or an error: path tokens, credentials, bot token, routing key. */
  secrets: string[];
  /** The renderer for one run: a notice's body, or none when this channel does not send it. */
  formatter(facts: NodeFacts): (notice: Notice) => string[];
}

export interface NotifySettings {
  channels: Channel[];
  /** CHAINVISOR_NOTIFY_EVENTS; undefined for all. */
  events: ReadonlySet<string> | undefined;
}

export function parseNotifySettings(config: Partial<ChannelSettings>): NotifySettings {
  const problems: ConfigProblem[] = [];
  const events = parseEvents(config.notifyEvents ?? 'all', problems);
  const channels: Channel[] = [];
  const wanted = (event: string) => event === testEvent || events === undefined || events.has(event);

  const slack = (config.slackWebhookUrl ?? '').trim();
  if (slack !== '') {
    const url = httpUrl(slack, 'CHAINVISOR_SLACK_WEBHOOK_URL', true, problems);
    if (url) channels.push({ name: 'slack', url, secrets: secretsOf(url), formatter: () => (n) => (wanted(n.event) ? [slackBody(n)] : []) });
  }
  const discord = (config.discordWebhookUrl ?? '').trim();
  if (discord !== '') {
    const url = httpUrl(discord, 'CHAINVISOR_DISCORD_WEBHOOK_URL', true, problems);
    if (url) channels.push({ name: 'discord', url, secrets: secretsOf(url), formatter: () => (n) => (wanted(n.event) ? [discordBody(n)] : []) });
  }

  const token = (config.telegramBotToken ?? '').trim();
  const chatId = (config.telegramChatId ?? '').trim();
  if (token !== '' || chatId !== '') {
    if (token === '')
      problems.push({ setting: 'CHAINVISOR_TELEGRAM_BOT_TOKEN', message: 'is needed with CHAINVISOR_TELEGRAM_CHAT_ID: the token @BotFather gave the bot' });
    else if (!/^[A-Za-z0-9:_-]+$/.test(token))
      problems.push({ setting: 'CHAINVISOR_TELEGRAM_BOT_TOKEN', message: 'is not a bot token (digits, a colon, then letters, digits, _ and -)' });
    if (chatId === '')
      problems.push({ setting: 'CHAINVISOR_TELEGRAM_CHAT_ID', message: 'is needed with CHAINVISOR_TELEGRAM_BOT_TOKEN: a numeric chat id or @channelname' });
    else if (!/^(-?\d{1,15}|@[A-Za-z0-9_]{4,})$/.test(chatId))
      problems.push({ setting: 'CHAINVISOR_TELEGRAM_CHAT_ID', value: chatId, message: 'is not a chat id: a number such as -1001234567890, or @channelname' });
    const api = httpUrl(config.telegramApiUrl ?? 'https://api.telegram.org', 'CHAINVISOR_TELEGRAM_API_URL', false, problems);
    if (api && problems.length === 0) {
      const url = new URL(`./bot${token}/sendMessage`, withSlash(api));
      // The part after the colon is the secret; the bot's number before it is not.
      const secrets = secretsOf(api, [token, token.slice(token.indexOf(':') + 1)]);
      channels.push({ name: 'telegram', url, secrets, formatter: () => (n) => (wanted(n.event) ? [telegramBody(n, chatId)] : []) });
    }
  }

  const routingKey = (config.pagerdutyRoutingKey ?? '').trim();
  if (routingKey !== '') {
    if (/[\s"\\]/.test(routingKey))
      problems.push({
        setting: 'CHAINVISOR_PAGERDUTY_ROUTING_KEY',
        message: 'is not a routing key (32 letters and digits, from the service\'s "Events API v2" integration)',
      });
    const api = httpUrl(config.pagerdutyApiUrl ?? 'https://events.pagerduty.com', 'CHAINVISOR_PAGERDUTY_API_URL', false, problems);
    if (api) {
      channels.push({
        name: 'pagerduty',
        url: new URL('./v2/enqueue', withSlash(api)),
        secrets: secretsOf(api, [routingKey]),
        formatter(facts) {
          const decide = createPager(facts);
          return (n) => {
            if (n.event === testEvent) {
              // A test page at the lowest severity, resolved at once.
              const dedup = `${dedupKey(facts)}/test`;
              return [
                pagerdutyBody({ action: 'trigger', severity: 'info', dedupKey: dedup }, routingKey, n),
                pagerdutyBody({ action: 'resolve', dedupKey: dedup }, routingKey, n),
              ];
            }
            const page = decide(n);
            // CHAINVISOR_NOTIFY_EVENTS narrows what pages, never what resolves: an incident is not left open.
            if (page === undefined || (page.action === 'trigger' && !wanted(n.event))) return [];
            return [pagerdutyBody(page, routingKey, n)];
          };
        },
      });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { channels, events };
}

function parseEvents(value: string, problems: ConfigProblem[]): ReadonlySet<string> | undefined {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0 || names.includes('all')) return undefined;
  const known = new Set<string>(chatEvents);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0)
    problems.push({
      setting: 'CHAINVISOR_NOTIFY_EVENTS',
      value,
      message: `unknown event ${unknown.join(', ')}; use all, or some of: ${chatEvents.join(', ')}`,
    });
  return new Set(names);
}

/** An http(s) URL whose credentials can be read; a secret one is never repeated in a problem, another only redacted. */
function httpUrl(value: string, setting: string, secret: boolean, problems: ConfigProblem[]): URL | undefined {
  const shown = secret ? {} : { value: redactSecretUrl(value.trim()) };
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    problems.push({ setting, ...shown, message: 'is not a URL' });
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push({ setting, ...shown, message: `uses ${url.protocol}; only http: and https: are sent to` });
    return undefined;
  }
  const split = splitCredentials(url);
  if (!split.ok) {
    problems.push({ setting, ...shown, message: split.problem });
    return undefined;
  }
  return url;
}

function withSlash(url: URL): URL {
  const base = new URL(url);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return base;
}
