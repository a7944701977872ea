/**
 * Telegram Bot API (REFERENCE §7): `POST <api>/bot<token>/sendMessage` with `parse_mode: "HTML"`.
 * In HTML mode `<`, `>` and `&` are escaped; the text holds at most 4096 characters, cut before
 * escaping so no entity or tag is ever cut in half.
 */
import { cut, fitTo, type Notice, type Tone, whereOf } from './notice.js';

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
