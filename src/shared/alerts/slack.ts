/**
 * Slack incoming webhooks (REFERENCE §7): `{"text", "blocks"}`. `text` is the fallback line that
 * notifications and old clients show; the blocks carry the whole notice. Slack's mrkdwn needs `&`, `<`
 * and `>` escaped; a section's text holds at most 3000 characters.
 */
import { secretsOf } from '../redact.js';
import { defineChannel } from './channel.js';
import { cut, fitTo, headlineOf, type Notice, type Tone } from './notice.js';
import { httpUrl } from './service-url.js';

export const slack = defineChannel({
  name: 'slack',
  title: 'Slack',
  settings: {
    slackWebhookUrl: {
      env: 'CHAINVISOR_SLACK_WEBHOOK_URL',
      kind: 'string',
      default: '',
      redact: 'secret',
      description: 'A Slack incoming-webhook URL (`https://hooks.slack.com/services/…`): each upgrade event is posted as a message. Empty turns Slack off.',
    },
  },
  switch: 'slackWebhookUrl',
  help: 'CHAINVISOR_SLACK_WEBHOOK_URL',
  parse(values, { problems, wanted }) {
    if (values.slackWebhookUrl.trim() === '') return undefined;
    const url = httpUrl(values.slackWebhookUrl, 'CHAINVISOR_SLACK_WEBHOOK_URL', true, problems);
    return url && { name: 'slack', url, secrets: secretsOf(url), formatter: () => (n) => (wanted(n.event) ? [slackBody(n)] : []) };
  },
});

const icons: Record<Tone, string> = { good: ':large_green_circle:', info: ':large_blue_circle:', warning: ':large_yellow_circle:', bad: ':red_circle:' };
const sectionMax = 3000;

export function slackBody(notice: Notice): string {
  const field = (name: string, value: string) => ({ type: 'mrkdwn', text: cut(`*${name}*\n${escape(value)}`, 2000) });
  const fields = [field('Chain', notice.chainId ?? 'unknown'), field('Node', notice.node)];
  if (notice.upgrade) fields.push(field('Upgrade', notice.upgrade.name), field('Height', String(notice.upgrade.height)));
  const blocks: unknown[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: fitTo(sectionMax, (n) => `${icons[notice.tone]} *${escape(notice.title)}*\n${escape(cut(notice.what, n))}`) },
    },
    { type: 'section', fields },
  ];
  if (notice.hint)
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: fitTo(sectionMax, (n) => `*What to do:* ${escape(cut(notice.hint ?? '', n))}`) } });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `chainvisor · \`${notice.event}\` · ${notice.time}` }] });
  return JSON.stringify({ text: fitTo(sectionMax, (n) => escape(cut(`${headlineOf(notice)}: ${notice.what}`, n))), blocks });
}

/** Slack's three control characters; everything else is shown as written. */
function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
