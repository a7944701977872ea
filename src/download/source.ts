/**
 * A URL from the Info, split the way go-getter (and so cosmovisor) reads it: `checksum=` is a
 * directive for the downloader, not part of the request, so it is removed before fetching; user and
 * password become a Basic Authorization header.
 */
import { basicAuthorization, splitCredentials } from '../shared/net/index.js';
import { redactUrl } from '../shared/redact.js';
import { type Checksum, parseChecksum } from '../verify/index.js';
import { ChecksumRequiredError, InfoError } from './errors.js';

export interface DownloadSource {
  /** What to request: without `checksum=` and without credentials. */
  url: URL;
  /** From `checksum=`; undefined only when checksums are not required. */
  checksum: Checksum | undefined;
  /** Redacted, for logs and errors. */
  shown: string;
  /** `Basic …` when the URL carried credentials. */
  authorization: string | undefined;
}

export interface SourceOptions {
  /** DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM. */
  mustHaveChecksum: boolean;
  /** For messages: `linux/amd64 binary`, `Info document`. */
  what: string;
}

const schemes = new Set(['https:', 'http:', 'file:']);

export function parseSource(text: string, options: SourceOptions): DownloadSource {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch (error) {
    throw new InfoError(`the ${options.what} URL ${JSON.stringify(redactUrl(text))} is not a valid URL`, 'fix the URL in the Info', error);
  }
  if (!schemes.has(url.protocol)) {
    throw new InfoError(
      `the ${options.what} URL ${redactUrl(url)} uses the unsupported scheme ${url.protocol.replace(/:$/, '')}`,
      'use an https URL (http to loopback and, when enabled, file:// are also accepted)',
    );
  }
  const { rest, values } = takeChecksumParam(url.search);
  // Shown without `checksum=` (errors print the checksum on its own) but with any other query redacted.
  const display = new URL(url.href);
  display.search = rest;
  const shown = redactUrl(display);
  if (values.length > 1) {
    throw new InfoError(`the ${options.what} URL ${shown} has ${values.length} checksum parameters`, 'keep exactly one checksum=<algo>:<hex>');
  }
  const value = values[0];
  if (value === undefined && options.mustHaveChecksum) throw new ChecksumRequiredError(options.what, shown);
  const checksum = value === undefined ? undefined : parseChecksum(value);

  const split = splitCredentials(url);
  if (!split.ok) throw new InfoError(`the ${options.what} URL ${shown}: ${split.problem}`, 'fix the URL in the Info');
  const authorization = split.credentials === undefined ? undefined : basicAuthorization(split.credentials);
  const clean = split.url;
  // Set the query text as it was, minus `checksum=`: re-encoding it would break signed URLs.
  clean.search = rest;
  return { url: clean, checksum, shown, authorization };
}

/** Removes every `checksum=` parameter from a query string, keeping the others byte for byte. */
function takeChecksumParam(search: string): { rest: string; values: string[] } {
  const values: string[] = [];
  const kept: string[] = [];
  for (const part of search.replace(/^\?/, '').split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decodeParam(eq === -1 ? part : part.slice(0, eq));
    if (key === 'checksum') values.push(eq === -1 ? '' : decodeParam(part.slice(eq + 1)));
    else kept.push(part);
  }
  return { rest: kept.length === 0 ? '' : `?${kept.join('&')}`, values };
}

function decodeParam(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch (error) {
    // A stray % is kept as written; a checksum value is then refused by its own check.
    if (error instanceof URIError) return text;
    throw error;
  }
}
