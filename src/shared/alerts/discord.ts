/**
 * Discord webhooks (REFERENCE §7): one embed per event, coloured by severity, with the facts as
 * fields. Limits: title 256, description 4096, field value 1024, content 2000. Mentions in the text
 * (`@everyone`) never ping: `allowed_mentions` is empty.
 */
import { secretsOf } from '../redact.js';
import { defineChannel } from './channel.js';
import { cut, fitTo, headlineOf, type Notice, type Tone } from './notice.js';
import { httpUrl } from './service-url.js';

export const discord = defineChannel({
  name: 'discord',
  title: 'Discord',
  settings: {
    discordWebhookUrl: {
      env: 'CHAINVISOR_DISCORD_WEBHOOK_URL',
      kind: 'string',
      default: '',
      redact: 'secret',
      description:
        'A Discord webhook URL (`https://discord.com/api/webhooks/<id>/<token>`): each upgrade event is posted as an embed. Empty turns Discord off.',
    },
  },
  switch: 'discordWebhookUrl',
  help: 'CHAINVISOR_DISCORD_WEBHOOK_URL',
  parse(values, { problems, wanted }) {
    if (values.discordWebhookUrl.trim() === '') return undefined;
    const url = httpUrl(values.discordWebhookUrl, 'CHAINVISOR_DISCORD_WEBHOOK_URL', true, problems);
    return url && { name: 'discord', url, secrets: secretsOf(url), formatter: () => (n) => (wanted(n.event) ? [discordBody(n)] : []) };
  },
});

const colours: Record<Tone, number> = { good: 0x2eb67d, info: 0x3b82f6, warning: 0xf2a900, bad: 0xe01e5a };

export function discordBody(notice: Notice): string {
  const field = (name: string, value: string, inline = true) => ({ name, value: cut(escape(value), 1024), inline });
  const fields = [field('Chain', notice.chainId ?? 'unknown'), field('Node', notice.node)];
  if (notice.upgrade) fields.push(field('Upgrade', notice.upgrade.name), field('Height', String(notice.upgrade.height)));
  const hint = notice.hint ? `\n\n**What to do:** ${escape(cut(notice.hint, 1000))}` : '';
  const embed = {
    title: cut(notice.title, 256),
    description: fitTo(4096, (n) => `${escape(cut(notice.what, n))}${hint}`),
    color: colours[notice.tone],
    fields,
    timestamp: notice.time,
    footer: { text: `chainvisor · ${notice.event}` },
  };
  return JSON.stringify({ content: cut(headlineOf(notice), 2000), embeds: [embed], allowed_mentions: { parse: [] } });
}

/** Discord's markdown characters, shown as written. */
function escape(text: string): string {
  return text.replace(/([\\*_~`|>])/g, '\\$1');
}
