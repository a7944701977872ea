/**
 * Asking one source for a plan's binary (issue #34): the plan's Info, the operator's registry, or a
 * chain registry's versions.json. Whatever a source holds is data from the network: a document is
 * fetched by the download client (URL policy, proxies, CAs, file://, size and time limits), parsed
 * within bounds, and each URL read by the Info's own parser. A source that cannot be read, or holds
 * nothing usable, answers with why, never a throw: the caller warns and asks the next one. At the
 * height a document source has a short deadline of its own (docs/sources.md#at-the-height).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import type { UpgradeSourceName } from '../../config/index.js';
import { ChainvisorError } from '../../shared/errors/index.js';
import { readBounded } from '../../shared/fsread/index.js';
import { redactUrl } from '../../shared/redact.js';
import { assertChecksum } from '../../verify/index.js';
import type { Fetcher } from '../fetch.js';
import { resolveInfo } from '../info.js';
import { type DownloadSource, parseSource } from '../source.js';
import { matchEntry, maxSourceBytes, parseSourceDocument, type SourceEntry } from './documents.js';

/** What one source said about this host's binary. */
export type SourceAnswer =
  | {
      source: UpgradeSourceName;
      state: 'found';
      /** Where the source was read: `inline` for the plan's JSON Info, else the redacted URL. */
      origin: string;
      /** The key used: the host's platform or `any`. */
      platform: string;
      download: DownloadSource;
    }
  | {
      source: UpgradeSourceName;
      /** `unusable`: unreachable, refused, malformed, or a URL that cannot be used — worth a warning. */
      state: 'none' | 'height-differs' | 'unusable';
      origin: string;
      detail: string;
    };

export interface AskOptions {
  source: UpgradeSourceName;
  /** The plan's name and height (`undefined`: not known, `check-plan --upgrade` without `--height`). */
  name: string;
  height: number | undefined;
  /** The plan's Info as written on chain. */
  info: string;
  /** CHAINVISOR_REGISTRY_URL, CHAINVISOR_CHAIN_REGISTRY_URL. */
  registryUrl: string;
  chainRegistryUrl: string;
  /** DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: the plan's Info URL is held to it, as today. */
  mustHaveChecksum: boolean;
  platform: string;
  fetcher: Fetcher;
  workDir: string;
  signal?: AbortSignal;
  /** At the height: a document source (not the plan) not answered within this is late and not waited for. */
  lateAfterMs?: number;
  /** Ahead of the height: `lateAfterMs` runs from when this fires (the node halted), not from the start. */
  lateFrom?: AbortSignal;
}

export async function askSource(options: AskOptions): Promise<SourceAnswer> {
  const { source, lateAfterMs, lateFrom } = options;
  if (source === 'plan' || lateAfterMs === undefined) return askOnce(options);
  const late = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const start = () => {
    timer = setTimeout(() => late.abort(new Error('late at the height')), lateAfterMs);
  };
  if (lateFrom === undefined || lateFrom.aborted) start();
  else lateFrom.addEventListener('abort', start, { once: true });
  try {
    return await askOnce({ ...options, signal: options.signal === undefined ? late.signal : AbortSignal.any([options.signal, late.signal]) });
  } catch (error) {
    if (!late.signal.aborted || options.signal?.aborted) throw error;
    const detail = `late: no answer within ${lateAfterMs / 1000} s at the upgrade's height; not waited for`;
    return { source, state: 'unusable', origin: originOf(options), detail };
  } finally {
    clearTimeout(timer);
    lateFrom?.removeEventListener('abort', start);
  }
}

const originOf = (options: AskOptions): string =>
  options.source === 'plan' ? 'the plan' : redactUrl(options.source === 'registry' ? options.registryUrl : options.chainRegistryUrl);

async function askOnce(options: AskOptions): Promise<SourceAnswer> {
  const { source } = options;
  const url = source === 'registry' ? options.registryUrl : source === 'chain-registry' ? options.chainRegistryUrl : '';
  const origin = originOf(options);
  try {
    if (source === 'plan') return await askPlan(options);
    const read = await readDocument(options, url);
    if (!read.ok) return { source, state: 'unusable', origin, detail: read.reason };
    const parsed = parseSourceDocument(source, read.text);
    if (!parsed.ok) return { source, state: 'unusable', origin, detail: `the document is refused: ${parsed.reason}` };
    return fromEntries(options, origin, parsed.value);
  } catch (error) {
    // Every failure of the download client is a coded error; anything else is a bug and is not hidden.
    if (!(error instanceof ChainvisorError) || options.signal?.aborted) throw error;
    return { source, state: 'unusable', origin, detail: error.message };
  }
}

async function askPlan(options: AskOptions): Promise<SourceAnswer> {
  if (options.info.trim() === '') return { source: 'plan', state: 'none', origin: 'the plan', detail: 'the plan has no Info' };
  const info = await resolveInfo(options.info, {
    mustHaveChecksum: options.mustHaveChecksum,
    fetcher: options.fetcher,
    workDir: options.workDir,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const entry: SourceEntry = { name: options.name, height: undefined, binaries: new Map(Object.entries(info.binaries)) };
  return pickPlatform(options, info.origin === 'inline' ? 'the plan' : info.origin, entry);
}

function fromEntries(options: AskOptions, origin: string, entries: SourceEntry[]): SourceAnswer {
  const { source } = options;
  const match = matchEntry(entries, options.name, options.height);
  if ('none' in match) {
    if (match.none === 'no-entry') return { source, state: 'none', origin, detail: `no entry named "${options.name}"` };
    return {
      source,
      state: 'height-differs',
      origin,
      detail: `its entry "${options.name}" is for height ${match.heights.join(', ')}, not the plan's ${options.height}: another upgrade of that name, not used`,
    };
  }
  return pickPlatform(options, origin, match.entry);
}

/** The host's URL, else `any`'s, parsed as the Info's are (checksum read by the same parser). */
function pickPlatform(options: AskOptions, origin: string, entry: SourceEntry): SourceAnswer {
  const { source, platform } = options;
  const key = entry.binaries.has(platform) ? platform : entry.binaries.has('any') ? 'any' : undefined;
  if (key === undefined) {
    const keys = [...entry.binaries.keys()].sort();
    return {
      source,
      state: 'none',
      origin,
      detail: `no binary for ${platform} or "any" (${keys.length === 0 ? 'no binaries' : `it lists ${keys.join(', ')}`})`,
    };
  }
  try {
    const download = parseSource(entry.binaries.get(key) as string, { mustHaveChecksum: false, what: `${key} binary` });
    return { source, state: 'found', origin, platform: key, download };
  } catch (error) {
    if (!(error instanceof ChainvisorError)) throw error;
    return { source, state: 'unusable', origin, detail: error.message };
  }
}

/** The document's text, fetched once within the source bound, or why not. */
async function readDocument(options: AskOptions, url: string): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  const what = `${options.source} document`;
  const source = parseSource(url, { mustHaveChecksum: false, what });
  const file = path.join(options.workDir, `${options.source}.json`);
  const fetched = await options.fetcher.fetchToFile({ source, file, what, maxBytes: maxSourceBytes, ...(options.signal ? { signal: options.signal } : {}) });
  // A registry URL may pin its document (`?checksum=`), as an Info URL does.
  if (source.checksum !== undefined) assertChecksum({ what, url: source.shown }, source.checksum, fetched.checksum, fetched.bytes);
  try {
    const read = await readBounded(file, maxSourceBytes);
    if (read.status !== 'ok') return { ok: false, reason: `it cannot be read back: ${read.status}` };
    return { ok: true, text: read.text };
  } finally {
    await fs.rm(file, { force: true });
  }
}
