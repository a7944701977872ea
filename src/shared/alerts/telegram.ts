/**
 * Telegram Bot API (REFERENCE §7): `POST <api>/bot<token>/sendMessage` with `parse_mode: "HTML"`.
 * In HTML mode `<`, `>` and `&` are escaped; the text holds at most 4096 characters, cut before
 * escaping so no entity or tag is ever cut in half. The bot's token is in the URL's path: the part
 * after its colon is the secret, the bot's number before it is not.
 */
import { secretsOf } from '../redact.js';
import { defineChannel } from './channel.js';
import { cut, fitTo, type Notice, type Tone, whereOf } from './notice.js';
import { httpUrl, withSlash } from './service-url.js';

export const telegram = defineChannel({
  name: 'telegram',
  title: 'Telegram',
  settings: {
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
  },
  switch: 'telegramBotToken',
  help: 'CHAINVISOR_TELEGRAM_BOT_TOKEN and CHAINVISOR_TELEGRAM_CHAT_ID',
  parse(values, { problems, wanted }) {
    const token = values.telegramBotToken.trim();
    const chatId = values.telegramChatId.trim();
    if (token === '' && chatId === '') return undefined;
    if (token === '')
      problems.push({ setting: 'CHAINVISOR_TELEGRAM_BOT_TOKEN', message: 'is needed with CHAINVISOR_TELEGRAM_CHAT_ID: the token @BotFather gave the bot' });
    else if (!/^[A-Za-z0-9:_-]+$/.test(token))
      problems.push({ setting: 'CHAINVISOR_TELEGRAM_BOT_TOKEN', message: 'is not a bot token (digits, a colon, then letters, digits, _ and -)' });
    if (chatId === '')
      problems.push({ setting: 'CHAINVISOR_TELEGRAM_CHAT_ID', message: 'is needed with CHAINVISOR_TELEGRAM_BOT_TOKEN: a numeric chat id or @channelname' });
    else if (!/^(-?\d{1,15}|@[A-Za-z0-9_]{4,})$/.test(chatId))
      problems.push({ setting: 'CHAINVISOR_TELEGRAM_CHAT_ID', value: chatId, message: 'is not a chat id: a number such as -1001234567890, or @channelname' });
    const api = httpUrl(values.telegramApiUrl, 'CHAINVISOR_TELEGRAM_API_URL', false, problems);
    if (!api || problems.length > 0) return undefined;
    const url = new URL(`./bot${token}/sendMessage`, withSlash(api));
    const secrets = secretsOf(api, [token, token.slice(token.indexOf(':') + 1)]);
    return { name: 'telegram', url, secrets, formatter: () => (n) => (wanted(n.event) ? [telegramBody(n, chatId)] : []) };
  },
});

const icons: Record<Tone, string> = { good: '🟢', info: '🔵', warning: '🟡', bad: '🔴' };

export function telegramBody(notice: Notice, chatId: string): string {
  const facts = [`<b>${escape(whereOf(notice))}</b>`];
  if (notice.upgrade) facts.push(`upgrade <b>${escape(notice.upgrade.name)}</b> at height <b>${notice.upgrade.height}</b>`);
  const hint = notice.hint ? `\n<b>What to do:</b> ${escape(notice.hint)}` : '';
  const text = fitTo(
    4096,
    (n) =>
      `${icons[notice.tone]} <b>${escape(notice.title)}</b>\n${facts.join(' · ')}\n${escape(cut(notice.what, n))}${hint}\n<i>${notice.event} · ${notice.time}</i>`,
  );
  return JSON.stringify({ chat_id: chatIdValue(chatId), text, parse_mode: 'HTML', disable_web_page_preview: true });
}

/** A numeric chat id is sent as a number, `@channel` as a string. */
export function chatIdValue(chatId: string): number | string {
  return /^-?\d{1,15}$/.test(chatId) ? Number(chatId) : chatId;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
