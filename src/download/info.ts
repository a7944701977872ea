/**
 * The plan's Info: `{"binaries": {"linux/amd64": "<url>", "any": "<url>"}}`, or a URL
 * whose body is that JSON. The Info URL is held to the same rules as a binary URL — with checksums
 * required it needs its own `checksum=`, or whoever controls that server could swap both the binaries
 * and their checksums.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import * as v from 'valibot';

import { notReadError, readBounded } from '../shared/fsread/index.js';
import { checkShape, jsonObject, parseJsonValue } from '../shared/json.js';
import { assertChecksum } from '../verify/index.js';
import { InfoError, NoPlatformError } from './errors.js';
import type { Fetcher } from './fetch.js';
import { parseSource } from './source.js';

export interface Info {
  /** Platform key → URL, as written. */
  binaries: Record<string, string>;
  /** `inline`, or the redacted URL the Info was read from. */
  origin: string;
}

/** Largest Info document read from a URL. */
const maxInfoBytes = 1 << 20;

const keyPattern = /^[a-z0-9]+\/[a-z0-9]+$/i;
const infoHint = 'the Info must be {"binaries": {"<os>/<arch>": "<url>?checksum=sha256:<hex>", …}}';
/** Only that `binaries` is an object: each of its keys (any string, `__proto__` too) is checked below. */
const infoSchema = v.object({ binaries: jsonObject });

/** An Info given as a URL to its document (`scheme://…`), not as JSON. */
export function isInfoUrl(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text.trim());
}

/** Parses a JSON Info, reporting every malformed entry at once. */
export function parseInfoJson(text: string, origin: string): Info {
  const where = origin === 'inline' ? "the plan's Info" : `the Info document at ${origin}`;
  const raw = parseJsonValue(text, { maxBytes: maxInfoBytes });
  if (!raw.ok) throw new InfoError(`${where} is not valid JSON: ${raw.reason}`, infoHint);
  const parsed = checkShape(raw.value, infoSchema);
  if (!parsed.ok) throw new InfoError(`${where} has no "binaries" object`, infoHint);
  const binaries = parsed.value.binaries;
  const problems: string[] = [];
  const out: Record<string, string> = {};
  for (const [key, url] of Object.entries(binaries)) {
    if (key !== 'any' && !keyPattern.test(key)) problems.push(`key ${JSON.stringify(key)} is not "<os>/<arch>" or "any"`);
    else if (typeof url !== 'string' || url.trim() === '') problems.push(`binaries[${JSON.stringify(key)}] is not a URL string`);
    else out[key] = url;
  }
  if (Object.keys(binaries).length === 0) problems.push('"binaries" is empty');
  if (problems.length > 0) {
    throw new InfoError(
      `${where} is malformed: ${problems.join('; ')}`,
      'platform keys use Go names such as linux/amd64, darwin/arm64, or "any"; each value is a URL',
    );
  }
  return { binaries: out, origin };
}

export interface ResolveInfoOptions {
  /** DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM. */
  mustHaveChecksum: boolean;
  fetcher: Fetcher;
  /** Where the fetched document is written. */
  workDir: string;
  signal?: AbortSignal;
}

/** Reads the Info, fetching it first when it is a URL. */
export async function resolveInfo(text: string, options: ResolveInfoOptions): Promise<Info> {
  const trimmed = text.trim();
  if (trimmed === '') {
    throw new InfoError(
      'the plan has no Info, so there is no binary to download',
      'install the upgrade binary by hand: chainvisor add-upgrade <plan name> <path to binary>',
    );
  }
  if (trimmed.startsWith('{')) return parseInfoJson(trimmed, 'inline');
  if (!isInfoUrl(trimmed)) {
    const shown = trimmed.length > 80 ? `${trimmed.slice(0, 80)}…` : trimmed;
    throw new InfoError(
      `the plan's Info is neither a JSON binaries map nor a URL: ${JSON.stringify(shown)}`,
      'automatic download needs an Info such as {"binaries": {"linux/amd64": "https://…?checksum=sha256:…"}}; install the binary by hand with chainvisor add-upgrade',
    );
  }
  const what = 'Info document';
  const source = parseSource(trimmed, { mustHaveChecksum: options.mustHaveChecksum, what });
  const [file, signal] = [path.join(options.workDir, 'info.json'), options.signal ? { signal: options.signal } : {}];
  const result = await options.fetcher.fetchToFile({ source, file, what, maxBytes: maxInfoBytes, ...signal });
  if (source.checksum !== undefined) assertChecksum({ what, url: source.shown }, source.checksum, result.checksum, result.bytes);
  // The file the fetcher just wrote, read as every file is (shared/fsread), within the same bound.
  const read = await readBounded(file, maxInfoBytes);
  if (read.status !== 'ok') throw notReadError(file, read);
  const body = read.text.trim();
  await fs.rm(file, { force: true });
  if (body === '') throw new InfoError(`the Info document at ${source.shown} is empty`, 'fix the document on the server or the URL in the plan');
  return parseInfoJson(body, source.shown);
}

/** The host's entry, else `any`; otherwise an error listing the keys present. */
export function pickBinary(info: Info, platform: string): { platform: string; url: string } {
  const exact = info.binaries[platform];
  if (exact !== undefined) return { platform, url: exact };
  const any = info.binaries.any;
  if (any !== undefined) return { platform: 'any', url: any };
  throw new NoPlatformError(platform, Object.keys(info.binaries).sort());
}
