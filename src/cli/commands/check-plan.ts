/**
 * `chainvisor check-plan --info '<json or url>' [--all-platforms]`: for whoever writes the governance
 * proposal. Validates the Info, downloads and verifies the host's binary (or every platform's, a few
 * at a time), inspects each archive, and prints one row per platform. Exits non-zero when anything
 * would make an automatic upgrade fail.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { loadConfig } from '../../config/index.js';
import type { Fetcher, FetchProgress, Info, Resolution, SourceReport } from '../../download/index.js';
import { ChainvisorError, ExitCode, UsageError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/log.js';

/** What check-plan uses of the download and verify code, loaded when it runs (other commands never evaluate it). */
type Lib = typeof import('../../download/index.js') & Pick<typeof import('../../verify/index.js'), 'weakAlgos'>;
import { parseJsonValue, shownText } from '../../shared/json.js';
import { formatBytes } from '../../shared/units.js';
import { type CommandContext, defineCommand, writeLine } from '../command.js';
import { refuseUnusableProxies } from '../settings.js';

/** Downloads at once with --all-platforms. */
const parallel = 3;

interface Row {
  platform: string;
  url: string;
  size: string;
  checksum: string;
  binary: string;
  smoke: string;
  problem: ChainvisorError | undefined;
}

export const checkPlanCommand = defineCommand({
  args: {
    options: {
      info: {
        type: 'string',
        value: "'<json or url>'",
        help: 'the Info: {"binaries": {"linux/amd64": "https://…?checksum=sha256:…"}} or a URL to it',
      },
      upgrade: {
        type: 'string',
        value: '<name>',
        help: "resolve the upgrade of this name through CHAINVISOR_UPGRADE_SOURCES (with --info as the plan's Info, if given): one row per source",
      },
      height: { type: 'string', value: '<H>', help: "with --upgrade: the plan's height (entries for another height are not used)" },
      proposal: {
        type: 'string',
        value: '<id>',
        help: "check the Info of this upgrade proposal, read from the node while it is voted (DAEMON_HOME's node), and whether a cancellation could still pass before its height",
      },
      'all-platforms': { type: 'boolean', help: "download and check every platform listed, not only this host's" },
      name: { type: 'string', value: '<binary>', help: 'the binary to look for in archives (default: $DAEMON_NAME)' },
      'skip-smoke-test': { type: 'boolean', help: "do not run `<binary> version` on the host's binary" },
    },
  },
  // The formats come from verify's table, loaded only when the help is asked for (as when the command runs).
  help: async () =>
    [
      'Checks an Info before it goes into a governance proposal, the way nodes with',
      'DAEMON_ALLOW_DOWNLOAD_BINARIES=true will use it: every URL must parse and carry a checksum',
      '(unless DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false); the host\'s binary (or "any") is downloaded,',
      'its checksum compared, the archive inspected for bin/<name> or <name>, and `<binary> version` run.',
      (await import('../../verify/index.js')).formatsHelp,
      'Download settings (CHAINVISOR_DOWNLOAD_*, CHAINVISOR_EXTRACT_*, CHAINVISOR_ALLOW_*) apply;',
      'DAEMON_HOME is not needed. Exits 0 when every row is fine, 79 otherwise.',
      '',
      'With --upgrade <name> [--height H], resolves that upgrade through CHAINVISOR_UPGRADE_SOURCES',
      '(plan, registry, chain-registry) and prints one row per source: its URL, its checksum and whether',
      'it agrees; exits 79 when no binary would be installed (a disagreement, a quorum not met, no URL).',
      '',
      "With --proposal <id>, reads that upgrade proposal from DAEMON_HOME's node while it is voted, says when its",
      'height is expected and whether a cancellation could still pass before it (docs/governance.md), then checks',
      'its Info as above; exits 79 when the node lists no such upgrade proposal in its voting period.',
    ].join('\n'),
  async run(ctx, { values }) {
    const name = values.name ?? ctx.env.DAEMON_NAME;
    if (name === undefined || name === '') throw new UsageError('check-plan needs the binary name: pass --name <binary> or set DAEMON_NAME');
    // Only the download settings matter here; a placeholder home keeps the loader's required check quiet.
    const { config } = loadConfig({
      env: { ...ctx.env, DAEMON_HOME: ctx.env.DAEMON_HOME || os.tmpdir(), DAEMON_NAME: name },
      ...(ctx.configFile === undefined ? {} : { configFile: ctx.configFile }),
    });
    const height = values.height === undefined ? undefined : Number(values.height);
    if (height !== undefined && !(Number.isSafeInteger(height) && height > 0 && /^\d+$/.test(values.height ?? '')))
      throw new UsageError(`check-plan --height must be a positive whole number, not ${JSON.stringify(values.height)}`);
    if (values.height !== undefined && values.upgrade === undefined) throw new UsageError('check-plan --height needs --upgrade');
    if (values.proposal !== undefined && !/^\d{1,20}$/.test(values.proposal))
      throw new UsageError(`check-plan --proposal takes a proposal id (a whole number), not ${JSON.stringify(values.proposal.slice(0, 40))}`);
    if (values.proposal !== undefined && (values.info !== undefined || values.upgrade !== undefined))
      throw new UsageError('check-plan --proposal reads the Info from the chain: give it without --info and --upgrade');
    if (values.info === undefined && values.upgrade === undefined && values.proposal === undefined) throw new UsageError('check-plan needs --info');
    refuseUnusableProxies(ctx.env);
    let infoGiven = values.info;
    if (values.proposal !== undefined) {
      const { readProposalPlan } = await import('./check-proposal.js');
      const plan = await readProposalPlan(ctx, values.proposal);
      if (plan.info.trim() === '')
        throw new ChainvisorError('CHAINVISOR_PLAN_NO_INFO', `proposal #${values.proposal}'s upgrade "${plan.name}" has no Info, so there is nothing to check`);
      infoGiven = plan.info;
    }
    const [download, { createLogger }, { weakAlgos }] = await Promise.all([
      import('../../download/index.js'),
      import('../../shared/log.js'),
      import('../../verify/index.js'),
    ]);
    const lib: Lib = { ...download, weakAlgos };
    if (values.info !== undefined) refuseUnreadableInfo(lib, values.info);
    const logger = createLogger({ level: 'warn', pretty: true, color: false });
    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-check-plan-'));
    const fetcher = lib.fetcherFromConfig(config, logger);
    try {
      if (values.upgrade !== undefined) {
        const plan = { name: values.upgrade, height, info: values.info ?? '' };
        const resolution = await lib.resolveSources({ plan, config, platform: lib.hostPlatform(), fetcher, workDir: work, logger });
        printSources(ctx, plan, lib.hostPlatform(), resolution, lib.sourceReport(resolution, config.checksumQuorum));
        return resolution.weighed.problem === undefined ? ExitCode.ok : ExitCode.upgradeFailed;
      }
      const info = await lib.resolveInfo(infoGiven as string, { mustHaveChecksum: config.downloadMustHaveChecksum, fetcher, workDir: work });
      const host = lib.hostPlatform();
      const notes = infoNotes(lib, info, host);
      const targets = values['all-platforms'] ? Object.keys(info.binaries).sort() : [lib.pickBinary(info, host).platform];
      const rows = await mapLimit(targets, parallel, (platform, i) =>
        checkOne({
          platform,
          url: info.binaries[platform] as string,
          name,
          host,
          smoke: !values['skip-smoke-test'],
          config,
          fetcher,
          workDir: path.join(work, String(i)),
          logger,
          lib,
        }),
      );
      // Entries not downloaded are still validated: a bad URL fails the check whichever host runs it.
      for (const platform of Object.keys(info.binaries).sort()) {
        if (!targets.includes(platform)) rows.push(validateOnly(lib, platform, info.binaries[platform] as string, config.downloadMustHaveChecksum));
      }
      printReport(ctx, info, rows, notes);
      return rows.every((r) => r.problem === undefined) ? ExitCode.ok : ExitCode.upgradeFailed;
    } finally {
      await fetcher.close();
      await fs.rm(work, { recursive: true, force: true });
    }
  },
});

interface CheckOneOptions {
  platform: string;
  url: string;
  name: string;
  host: string;
  smoke: boolean;
  config: ReturnType<typeof loadConfig>['config'];
  fetcher: Fetcher;
  workDir: string;
  logger: Logger;
  lib: Lib;
}

async function checkOne(o: CheckOneOptions): Promise<Row> {
  const { parseSource, redactUrl, fetchAndUnpack } = o.lib;
  const runsHere = o.platform === o.host || o.platform === 'any';
  const row: Row = { platform: o.platform, url: o.url, size: '-', checksum: '-', binary: '-', smoke: '-', problem: undefined };
  const progress: FetchProgress = {};
  try {
    row.url = redactUrl(o.url);
    const source = parseSource(o.url, { mustHaveChecksum: o.config.downloadMustHaveChecksum, what: `${o.platform} binary` });
    row.url = source.shown;
    await fs.mkdir(o.workDir);
    await fetchAndUnpack({
      source,
      platform: o.platform,
      name: o.name,
      workDir: o.workDir,
      fetcher: o.fetcher,
      limits: { maxBytes: o.config.extractMaxBytes, maxEntries: o.config.extractMaxEntries },
      logger: o.logger,
      smokeTest: o.smoke && runsHere ? {} : false,
      progress,
    });
    if (source.checksum === undefined) row.checksum = 'none given';
  } catch (error) {
    if (!(error instanceof ChainvisorError)) throw error;
    row.problem = error;
  } finally {
    await fs.rm(o.workDir, { recursive: true, force: true });
  }
  if (progress.bytes !== undefined) row.size = formatBytes(progress.bytes);
  if (row.checksum === '-') row.checksum = progress.verified ? 'ok' : row.problem?.code === 'CHAINVISOR_CHECKSUM_MISMATCH' ? 'MISMATCH' : '-';
  // A plain executable's format is `executable`: said once. A compressed one keeps its compression: `(plain executable) (gz)`.
  const unpacked = progress.unpacked;
  if (unpacked) row.binary = unpacked.format === 'executable' ? unpacked.from : `${unpacked.from} (${unpacked.format})`;
  else if (progress.verified && row.problem !== undefined) row.binary = 'NOT FOUND';
  if (!runsHere) row.smoke = 'n/a (other platform)';
  else if (!o.smoke) row.smoke = 'skipped';
  else if (progress.version !== undefined) row.smoke = `ok: ${progress.version}`;
  else if (row.problem?.code === 'CHAINVISOR_SMOKE_TEST_FAILED') row.smoke = 'FAILED';
  return row;
}

/** An --info neither JSON nor a URL is a command-line mistake (64); an Info of the wrong shape stays a finding (79). */
function refuseUnreadableInfo(lib: Lib, info: string): void {
  const text = info.trim();
  const parsed = parseJsonValue(text);
  if (text === '' || lib.isInfoUrl(text) || parsed.ok) return;
  const why = /^[[{"]/.test(text) ? `it is not valid JSON (${parsed.reason})` : 'it is neither';
  const example = `--info '{"binaries": {"linux/amd64": "https://…/simd?checksum=sha256:…"}}'`;
  throw new UsageError(`check-plan --info must be the Info as JSON or a URL to it, not ${JSON.stringify(shownText(text, 80))}: ${why}; for example ${example}`);
}

/** A row for an entry that is not downloaded (without --all-platforms): its URL is checked only. */
function validateOnly(lib: Lib, platform: string, url: string, mustHaveChecksum: boolean): Row {
  const { parseSource, redactUrl } = lib;
  const row: Row = { platform, url, size: '-', checksum: '-', binary: 'not downloaded', smoke: '-', problem: undefined };
  try {
    const source = parseSource(url, { mustHaveChecksum, what: `${platform} binary` });
    row.url = source.shown;
    row.checksum = source.checksum === undefined ? 'none given' : 'not checked';
  } catch (error) {
    if (!(error instanceof ChainvisorError)) throw error;
    row.url = redactUrl(url);
    row.problem = error;
  }
  return row;
}

/** Things worth knowing that do not fail the check. */
function infoNotes(lib: Lib, info: Info, host: string): string[] {
  const { weakAlgos } = lib;
  const notes: string[] = [];
  for (const [key, url] of Object.entries(info.binaries)) {
    if (key !== key.toLowerCase()) notes.push(`${key}: platform keys are matched exactly; nodes look for lower-case Go names such as linux/amd64`);
    const algo = /[?&]checksum=([a-z0-9]+):/i.exec(url)?.[1]?.toLowerCase();
    if (algo !== undefined && weakAlgos.has(algo as 'md5' | 'sha1')) notes.push(`${key}: ${algo} is a weak checksum; prefer sha256 or sha512`);
  }
  if (info.binaries[host] === undefined && info.binaries.any === undefined) notes.push(`no entry for this host (${host})`);
  return notes;
}

function printReport(ctx: CommandContext, info: Info, rows: Row[], notes: string[]): void {
  const header: Row = { platform: 'PLATFORM', url: 'URL', size: 'SIZE', checksum: 'CHECKSUM', binary: 'BINARY', smoke: 'SMOKE TEST', problem: undefined };
  const columns = ['platform', 'url', 'size', 'checksum', 'binary', 'smoke'] as const;
  const widths = columns.map((c) => Math.max(...[header, ...rows].map((r) => r[c].length)));
  writeLine(ctx.stdout, `Info: ${info.origin === 'inline' ? 'inline JSON' : info.origin}, ${Object.keys(info.binaries).length} platform(s)`);
  for (const row of [header, ...rows]) {
    writeLine(
      ctx.stdout,
      columns
        .map((c, i) => (i === columns.length - 1 ? row[c] : row[c].padEnd(widths[i] as number)))
        .join('  ')
        .trimEnd(),
    );
  }
  for (const note of notes) writeLine(ctx.stdout, `note: ${note}`);
  const failed = rows.filter((r) => r.problem !== undefined);
  for (const row of failed) {
    writeLine(ctx.stderr, `${row.platform}: error: ${row.problem?.message}`);
    if (row.problem?.hint) writeLine(ctx.stderr, `${row.platform}: hint: ${row.problem.hint}`);
    if (row.problem !== undefined) writeLine(ctx.stderr, `${row.platform}: code: ${row.problem.code}`);
  }
  const checked = rows.filter((r) => r.binary !== 'not downloaded').length;
  writeLine(
    ctx.stdout,
    failed.length === 0
      ? `ok: ${checked} binar${checked === 1 ? 'y' : 'ies'} checked${checked < rows.length ? ` (--all-platforms downloads the other ${rows.length - checked})` : ''}`
      : `FAILED: ${failed.length} of ${rows.length} entries have problems`,
  );
}

/** check-plan --upgrade: one row per source, then where the binary would come from or why none would be installed. */
function printSources(
  ctx: CommandContext,
  plan: { name: string; height: number | undefined },
  platform: string,
  resolution: Resolution,
  report: SourceReport,
): void {
  writeLine(
    ctx.stdout,
    `Upgrade ${plan.name}${plan.height === undefined ? '' : ` at height ${plan.height}`}, ${platform}, sources: ${resolution.sources.join(', ')}`,
  );
  const header = { source: 'SOURCE', url: 'URL', checksum: 'CHECKSUM', agreement: 'AGREEMENT' };
  const columns = ['source', 'url', 'checksum', 'agreement'] as const;
  const all = [header, ...report.rows];
  const widths = columns.map((c) => Math.max(...all.map((r) => r[c].length)));
  for (const row of all) writeLine(ctx.stdout, columns.map((c, i) => (i === columns.length - 1 ? row[c] : row[c].padEnd(widths[i] as number))).join('  '));
  for (const note of report.notes) writeLine(ctx.stdout, `note: ${note}`);
  const problem = resolution.weighed.problem;
  if (problem === undefined) {
    writeLine(ctx.stdout, `ok: ${report.summary}`);
    return;
  }
  writeLine(ctx.stderr, `error: ${problem.message}`);
  if (problem.hint) writeLine(ctx.stderr, `hint: ${problem.hint}`);
  writeLine(ctx.stderr, `code: ${problem.code}`);
  writeLine(ctx.stdout, `FAILED: ${report.summary}`);
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
