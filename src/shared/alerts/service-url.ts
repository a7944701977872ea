/**
 * The URL an alert channel's setting gives (a webhook, an API server), checked as the channels all
 * check theirs: http(s) only, credentials that can be decoded. A secret URL (a webhook whose path is
 * its token) is never repeated in a problem; an API server's is shown only as shared/redact.ts shows a
 * receiver's (no credentials, no path tokens).
 */
import type { ConfigProblem } from '../errors/index.js';
import { splitCredentials } from '../net/index.js';
import { redactSecretUrl } from '../redact.js';

/** An http(s) URL whose credentials can be read; a secret one is never repeated in a problem, another only redacted. */
export function httpUrl(value: string, setting: string, secret: boolean, problems: ConfigProblem[]): URL | undefined {
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

/** The API server as a base a relative path (`./v2/enqueue`) is appended to, not a sibling of its last segment. */
export function withSlash(url: URL): URL {
  const base = new URL(url);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return base;
}
