/**
 * URLs as they may appear in logs, errors and `chainvisor config`: no user or password, no query
 * string (signed URLs carry their secret there). Shared by downloads and webhooks, so it lives on
 * the bottom floor beside errors and log.
 *
 * `https://user:tok@host/a/b?sig=x` → `https://***@host/a/b?…`.
 */
export function redactUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch (error) {
    // Not a URL at all: redact by pattern so credentials in a malformed string do not leak either.
    if (error instanceof TypeError) return redactText(String(url));
    throw error;
  }
  const auth = parsed.username !== '' || parsed.password !== '' ? '***@' : '';
  const query = parsed.search === '' ? '' : '?…';
  if (parsed.protocol === 'file:') return `file://${parsed.pathname}${query}`;
  return `${parsed.protocol}//${auth}${parsed.host}${parsed.pathname}${query}`;
}

function redactText(text: string): string {
  return text.replace(/\/\/[^/@?#\s]*@/g, '//***@').replace(/\?\S*/g, '?…');
}
