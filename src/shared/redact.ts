/**
 * The one redaction of everything chainvisor prints that may hold a secret: URLs in logs, errors,
 * `chainvisor config` and `notify --test`, and texts it did not write (a service's answer, an
 * error's message). On the bottom floor, so downloads, the network and the alert channels share it.
 * Why, and the rest of its rules: docs/design/reading-and-redacting.md#sharedredactts.
 */

/** A download's URL as it may be shown: the path kept, no credentials, no query, no fragment. */
export function redactUrl(url: URL | string): string {
  const parsed = parse(url);
  if (parsed === undefined) return redactPattern(String(url));
  const auth = parsed.username !== '' || parsed.password !== '' ? '***@' : '';
  const query = parsed.search === '' ? '' : '?…';
  if (parsed.protocol === 'file:') return `file://${parsed.pathname}${query}`;
  return `${parsed.protocol}//${auth}${parsed.host}${parsed.pathname}${query}`;
}

/** A receiver's URL as it may be shown: scheme, host, and at most one plain word of its path. */
export function redactSecretUrl(url: URL | string): string {
  const parsed = parse(url);
  if (parsed === undefined) return redactPattern(String(url)).replace(/^([a-z][a-z0-9+.-]*:\/\/[^/]*\/).+$/i, '$1…');
  const auth = parsed.username !== '' || parsed.password !== '' ? '***@' : '';
  const shown = shownPath(parsed);
  const hidden = shown.length < parsed.pathname.length || parsed.search !== '' || parsed.hash !== '';
  return `${parsed.protocol}//${auth}${parsed.host}${shown}${hidden ? '…' : ''}`;
}

/** Every URL in `text` that holds credentials or a query as `redactUrl` shows it; the rest of the text as it is. */
export function redactText(text: string): string {
  // A URL ends before white space or quotes, and a trailing `.,;:)]` is the sentence's, not the URL's.
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*[^\s"'<>`.,;:)\]]/gi, (match) => {
    const parsed = parse(match);
    const secret = parsed === undefined || parsed.username !== '' || parsed.password !== '' || parsed.search !== '';
    return secret ? redactUrl(match) : match;
  });
}

/**
 * The fragments of `url` (a receiver's) that must never be shown, raw and percent-decoded: the path
 * `redactSecretUrl` hides and each of its segments, the user and password, the query and each of its
 * values. Fragments shorter than 4 characters are left out (scrubbing every `a` of a text helps no
 * one); `redactText` still removes them where they appear as credentials of a URL.
 */
export function secretsOf(url: URL, extra: readonly string[] = []): string[] {
  const hiddenPath = url.pathname.slice(shownPath(url).length);
  const fragments = [
    ...extra,
    hiddenPath,
    ...hiddenPath.split('/'),
    url.username,
    url.password,
    url.search.slice(1),
    ...url.search
      .slice(1)
      .split('&')
      .map((pair) => pair.slice(pair.indexOf('=') + 1)),
  ];
  return variants(fragments);
}

/** `text` with every secret (and each of its variants) replaced by `***`, and its URLs redacted. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of variants(secrets)) out = out.split(secret).join('***');
  return redactText(out);
}

/** Each fragment as written, percent-decoded and percent-encoded; the longest first, 4 characters at least. */
function variants(fragments: readonly string[]): string[] {
  const all = new Set<string>();
  for (const fragment of fragments) {
    for (const form of [fragment, decoded(fragment), encodeURIComponent(decoded(fragment))]) if (form.length >= 4) all.add(form);
  }
  return [...all].sort((a, b) => b.length - a.length);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch (error) {
    if (error instanceof URIError) return text;
    throw error;
  }
}

/** The part of the path a receiver's URL may show: `/` and the first segment when it is a plain word with more after it. */
function shownPath(url: URL): string {
  const match = /^\/([a-z][a-z_-]{0,23})\/./.exec(url.pathname);
  return match === null ? '/' : `/${match[1]}/`;
}

function parse(url: URL | string): URL | undefined {
  if (typeof url !== 'string') return url;
  try {
    return new URL(url);
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
}

/** Not a URL at all: anything that looks like credentials or a query goes, so a malformed string leaks nothing either. */
function redactPattern(text: string): string {
  return text.replace(/\/\/[^\s"'<>`]*@/g, '//***@').replace(/\?[^\s"'<>`]*/g, '?…');
}
