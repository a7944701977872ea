/**
 * One HTTP exchange, redirects included. Redirects are followed here rather than by an
 * interceptor so that every hop passes the URL policy (which judges the target URL, never the
 * proxy the request goes through), https never leads to http, a loop is named as one, and
 * credentials never follow the request to another origin.
 */
import { dropBody, type HttpClient, type HttpResponse } from '../shared/net/index.js';
import { redactUrl } from '../shared/redact.js';
import { RedirectError } from './errors.js';
import { checkUrlAllowed, type UrlPolicy } from './policy.js';

const maxRedirects = 5;

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

export interface OpenOptions {
  client: HttpClient;
  policy: UrlPolicy;
  headers: Record<string, string>;
  /** Sent only to the origin of the first URL. */
  authorization: string | undefined;
  signal: AbortSignal | undefined;
}

export interface Opened {
  response: HttpResponse;
  /** The URL that answered, after redirects. */
  url: URL;
}

export async function openUrl(start: URL, options: OpenOptions): Promise<Opened> {
  const chain = [start];
  let url = start;
  for (;;) {
    checkUrlAllowed(url, options.policy);
    const headers = { ...options.headers };
    if (options.authorization !== undefined && url.origin === start.origin) headers.authorization = options.authorization;
    const response = await options.client.request(url, { headers, signal: options.signal });
    if (!redirectStatuses.has(response.statusCode)) return { response, url };

    await dropBody(response.body);
    const shownChain = (extra?: URL): string[] => [...chain, ...(extra === undefined ? [] : [extra])].map((u) => redactUrl(u));
    const location = header(response.headers.location);
    if (location === undefined) {
      throw new RedirectError(redactUrl(start), `answer ${response.statusCode} without a Location header`, shownChain());
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      throw new RedirectError(redactUrl(start), `invalid Location ${JSON.stringify(redactUrl(location))}`, shownChain());
    }
    // Only http(s) is followed: a redirect to file:// would read a local file the URL policy allowed
    // only for the Info's own URLs, and ftp:// or anything else is not HTTP at all.
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new RedirectError(redactUrl(start), `a redirect to ${next.protocol.replace(/:$/, '')} is never followed (only http and https)`, shownChain(next));
    }
    if (url.protocol === 'https:' && next.protocol !== 'https:') {
      throw new RedirectError(redactUrl(start), `a redirect from https to ${next.protocol.replace(/:$/, '')} is never followed`, shownChain(next));
    }
    if (chain.some((u) => u.href === next.href)) {
      throw new RedirectError(redactUrl(start), 'redirect loop', shownChain(next));
    }
    if (chain.length > maxRedirects) {
      throw new RedirectError(redactUrl(start), `more than ${maxRedirects} redirects`, shownChain(next));
    }
    chain.push(next);
    url = next;
  }
}

export function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
