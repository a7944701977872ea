/**
 * A user and password written in a URL (`https://ops:p%40ss@host/`), read once for every URL that may
 * carry them: a download's, a webhook's, an alert server's and a proxy's. They are percent-decoded
 * (as Go's `url.User` reads them) and leave the URL, to travel as a Basic header. A `%` that does not
 * start an escape (`ops:100%zz@`) cannot be decoded: that is the operator's typo, so each setting's
 * check refuses it at start (exit 78) with `credentialsProblem`, instead of every request failing
 * later as "this is a bug".
 */

export interface Credentials {
  user: string;
  password: string;
}

/** The URL without its credentials, and the credentials; or why they cannot be read. */
export type SplitUrl = { ok: true; url: URL; credentials: Credentials | undefined } | { ok: false; problem: string };

export const credentialsProblem =
  'the user or password in the URL has a % that does not start an escape (%XX): write a % itself as %25, and @ : / as %40 %3A %2F';

export function splitCredentials(url: URL): SplitUrl {
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  if (url.username === '' && url.password === '') return { ok: true, url: bare, credentials: undefined };
  try {
    return { ok: true, url: bare, credentials: { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } };
  } catch (error) {
    if (error instanceof URIError) return { ok: false, problem: credentialsProblem };
    throw error;
  }
}

/** `Basic …`, the header value that carries `credentials`. */
export function basicAuthorization(credentials: Credentials): string {
  return `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
}
