/**
 * Queuing manual upgrades (`add-upgrade --upgrade-height`, `add-batch-upgrade`): every entry is checked
 * together — name usable as a folder, binary present, height above the node's current height, no clash
 * with the queue or with a governance plan at the same height — and only then are the binaries installed
 * and the batch file rewritten (atomically). A refused command leaves the queue untouched.
 *
 * When the node cannot be asked (it is stopped, or neither its gRPC nor its RPC answers) the heights cannot be checked against
 * the chain: the entries are accepted with a warning, since operators queue upgrades while the node is
 * stopped; `run` checks them again once the node answers.
 */
import fs from 'node:fs/promises';

import { addressesFor, type ChainAddresses, type ChainClient, ChainUnavailableError, createChainReader } from '../chain/index.js';
import type { Config } from '../config/index.js';
import { updateStagedRecord } from '../download/staging/index.js';
import { binaryPath, installBinary, isFile, type Layout, planDir } from '../home/layout/index.js';
import { ChainvisorError, isErrno } from '../shared/errors/index.js';
import { sameContent } from '../shared/fsread/index.js';
import { byHeight, clashes, type ManualEntry, type ManualPlan, readQueued, writeQueue } from '../watcher/manual/index.js';

export interface ScheduleOptions {
  config: Config;
  layout: Layout;
  entries: readonly ManualEntry[];
  /** Replace an installed binary, and a queued entry of the same name. */
  force: boolean;
  /** Where the node listens; by default from the settings and DAEMON_HOME's files (src/chain/addresses.ts). */
  addresses?: ChainAddresses;
  /** Replaces the chain reader (tests). */
  chain?: ChainClient;
}

export interface ScheduleResult {
  queue: ManualPlan[];
  installed: string[];
  /** The latest height the node reported, or why it could not be asked. */
  chain: { height: number } | { unavailable: string };
}

export async function scheduleUpgrades(options: ScheduleOptions): Promise<ScheduleResult> {
  const { config, layout, entries, force } = options;
  const queued = await readQueued(layout);
  const problems: string[] = [];

  // 1. Each entry on its own, and the entries among themselves.
  const dirs = new Map<ManualEntry, string>();
  const alreadyThere = new Set<ManualEntry>();
  for (const entry of entries) {
    let dir: string;
    try {
      dir = planDir(layout, entry.name);
    } catch (error) {
      problems.push((error as Error).message);
      continue;
    }
    dirs.set(entry, dir);
    const dest = binaryPath(layout, dir);
    if (entry.source !== undefined) {
      const problem = await sourceProblem(entry.source);
      if (problem) problems.push(`"${entry.name}": ${problem}`);
      else if (!force && (await isFile(dest))) {
        // The same file installed earlier (`add-upgrade <name> <path>`, then queued): nothing to replace.
        if (await sameContent(entry.source, dest)) alreadyThere.add(entry);
        else problems.push(`"${entry.name}": a different binary is already installed at ${dest} (pass --force to replace it)`);
      }
    } else if (!(await isFile(dest)) && !(config.allowDownloadBinaries && entry.info !== '')) {
      problems.push(
        `"${entry.name}": no binary installed at ${dest}, and it cannot be downloaded (needs DAEMON_ALLOW_DOWNLOAD_BINARIES=true and binaries in "info")`,
      );
    }
  }
  const added: ManualPlan[] = entries.map((e) => ({
    name: e.name,
    height: e.height,
    info: e.info,
    ...(e.waitForRestart ? { waitForRestart: true as const } : {}),
  }));
  problems.push(...clashes(added));

  // 2. Against the queue: the same name is replaced only with --force; the same height never.
  const kept: ManualPlan[] = [];
  for (const plan of queued) {
    const same = added.find((a) => a.name.toLowerCase() === plan.name.toLowerCase());
    if (same && force) continue;
    if (same) problems.push(`"${plan.name}" is already queued at height ${plan.height} (pass --force to replace it)`);
    const atHeight = added.find((a) => a.height === plan.height && a !== same);
    if (atHeight) problems.push(`height ${plan.height} already has the queued upgrade "${plan.name}"; the node halts once per height`);
    kept.push(plan);
  }

  // 3. Against the chain: above the current height, and not where governance already plans one.
  const chain = await askChain(options);
  if ('height' in chain) {
    for (const plan of added) {
      if (plan.height <= chain.height) {
        problems.push(`"${plan.name}" at height ${plan.height}: the node is already at height ${chain.height}; a manual upgrade must be above it`);
      }
    }
    if (chain.plan) {
      const gov = chain.plan;
      for (const plan of added.filter((a) => a.height === gov.height)) {
        problems.push(`"${plan.name}" at height ${plan.height}: governance already plans upgrade "${gov.name}" at that height`);
      }
    }
  }

  if (problems.length > 0) {
    throw new ChainvisorError('CHAINVISOR_BATCH_REFUSED', `manual upgrade refused, nothing was changed: ${problems.join('; ')}`, {
      hint: 'fix the entries and run the command again; the queue is in data/upgrade-info.json.batch',
    });
  }

  // 4. Install, then queue. (A failed install leaves the queue as it was.)
  const installed: string[] = [];
  for (const entry of entries) {
    if (entry.source === undefined || alreadyThere.has(entry)) continue;
    const dir = dirs.get(entry) as string;
    const { dest, unchanged } = await installBinary(layout, dir, entry.source, { force });
    // The operator's binary now: no record of chainvisor's staging may set it aside at the halt.
    if (!unchanged) await updateStagedRecord(layout, dir, undefined);
    installed.push(dest);
  }
  const queue = [...kept, ...added].sort(byHeight);
  await writeQueue(layout, queue);
  return { queue, installed, chain: 'height' in chain ? { height: chain.height } : chain };
}

async function askChain(options: ScheduleOptions): Promise<{ height: number; plan: { name: string; height: number } | null } | { unavailable: string }> {
  const client = options.chain ?? createChainReader({ addresses: options.addresses ?? addressesFor({ config: options.config }), timeoutMs: 5000 });
  try {
    const height = await client.latestHeight();
    const plan = await client.currentPlan();
    return { height, plan };
  } catch (error) {
    if (!(error instanceof ChainUnavailableError)) throw error;
    return { unavailable: error.message };
  } finally {
    if (options.chain === undefined) client.close();
  }
}

async function sourceProblem(source: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(source);
    if (!stat.isFile()) return `${source} is not a regular file`;
    return stat.size === 0 ? `${source} is empty (0 bytes): not a node binary` : undefined;
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return `no file at ${source}`;
    return `cannot read ${source}: ${(error as Error).message}`;
  }
}
