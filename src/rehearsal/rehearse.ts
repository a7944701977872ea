/**
 * One rehearsal, its steps in the order they run (docs/rehearsal.md#what-it-does): checks (./prepare.ts);
 * copy the live data/ into a scratch home (./hot-copy.ts, ./scratch-config.ts, ./place-binaries.ts);
 * halt the current binary there with `in-place-testnet`; migrate with chainvisor's own upgrade sequence
 * and the new binary's `start`; wait for N blocks (./wait-scratch-node.ts). A failure from the migration
 * on is the upgrade's (a `failed` report, exit 83); before, the rehearsal could not be made (a coded
 * error, exit 79). The scratch is removed at the end, whatever happened, unless kept.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

import { type Plan, readUpgradeInfo } from '../chain/index.js';
import type { Config } from '../config/index.js';
import { createPlacer } from '../home/backup/index.js';
import { type Layout, layoutFor, planTarget } from '../home/layout/index.js';
import { ChainvisorError } from '../shared/errors/index.js';
import type { EventBus } from '../shared/events/index.js';
import { hashFile, readGenesisFacts } from '../shared/fsread/index.js';
import type { Logger } from '../shared/log.js';
import { progressOnBus } from '../shared/progress/index.js';
import { runUpgrade } from '../supervisor/index.js';
import { copyLiveData } from './hot-copy.js';
import { keepingOutput } from './keep-output.js';
import { newScratchKeys, operatorAddress } from './keys.js';
import { placeBinaries } from './place-binaries.js';
import { listenerFlags, scratchPorts } from './ports.js';
import { checkInPlaceTestnet, checkSpace, findBinaries, sdkHint } from './prepare.js';
import type { RehearsalPhases, RehearsalReport } from './record.js';
import { liveGenesisPath, writeScratchConfig } from './scratch-config.js';
import { newScratchPath, ownDiskUse, recordScratchNode, removeLeftoverRehearsals } from './scratch-dir.js';
import { pushEnv, scratchEnv } from './scratch-env.js';
import { type ScratchNode, startScratchNode } from './scratch-node.js';
import { describe, stalled, waitHalt, waitHeight } from './wait-scratch-node.js';

export interface RehearseOptions {
  config: Config;
  layout: Layout;
  logger: Logger;
  upgrade: string;
  /** Blocks past the upgrade height to wait for (default 3). */
  blocks: number;
  /** From the old binary's start to the last block. */
  timeoutMs: number;
  keep: boolean;
  /** The operator address given with --operator; else derived from the fresh key. */
  operator?: string | undefined;
  /** Extra flags for the scratch node's commands (after `--`). */
  nodeArgs: string[];
  signal: AbortSignal;
  /** One line per phase, for a terminal. */
  progress?: (text: string) => void;
  /** Where the copy's progress goes (`backup-progress` events; a terminal's progress bar listens). */
  events?: EventBus;
}

const seconds = (ms: number) => Math.round(ms) / 1000;

/** A failure of the upgrade itself, on the copy: the report says `failed`. */
class UpgradeFailed extends ChainvisorError {
  constructor(message: string) {
    super('CHAINVISOR_REHEARSAL_FAILED', message);
  }
}

export async function rehearse(options: RehearseOptions): Promise<RehearsalReport> {
  const { config, layout, logger, upgrade, signal } = options;
  const say = options.progress ?? (() => undefined);
  const startedAt = new Date();
  const rehearsalDir = config.rehearsalDir;
  await removeLeftoverRehearsals({ rehearsalDir, logger });
  const binaries = await findBinaries(layout, config, upgrade);
  const env = scratchEnv(layout, '');
  await checkInPlaceTestnet(binaries.oldBinary, env);
  const genesisFile = await liveGenesisPath(layout.home);
  const read = await readGenesisFacts(genesisFile, { signal });
  if (read.status !== 'ok' || read.facts.chainId === undefined) {
    const why = read.status === 'ok' ? 'it has no chain_id' : read.status === 'missing' ? 'there is no such file' : read.reason;
    throw new ChainvisorError('CHAINVISOR_REHEARSAL_UNAVAILABLE', `cannot read the chain id from the genesis file ${genesisFile}: ${why}`, {
      hint: "check the node's genesis file (config.toml's genesis_file): a regular file holding the chain's chain_id",
    });
  }
  const genesis = { ...read.facts, chainId: read.facts.chainId };
  for (const live of [layout.dataDir, path.join(layout.home, 'config')]) {
    const inside = path.relative(await fs.realpath(live).catch(() => live), path.resolve(rehearsalDir));
    if (inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside))) {
      throw new ChainvisorError('CHAINVISOR_REHEARSAL_UNAVAILABLE', `CHAINVISOR_REHEARSAL_DIR ${rehearsalDir} is inside ${live}: the copy would copy itself`, {
        hint: "choose a folder outside the node's data/ and config/, on the same filesystem as data/ (the default, $DAEMON_HOME/cosmovisor, is)",
      });
    }
  }
  await fs.mkdir(rehearsalDir, { recursive: true });
  const space = await checkSpace({ layout, config, rehearsalDir, logger });
  const binarySha = await sha256(binaries.newBinary, signal);
  const scratch = newScratchPath(rehearsalDir);
  const phases: RehearsalPhases = { copy: null, halt: null, migration: null, blocks: null };
  let node: ScratchNode | undefined;
  let newBinary = false;
  let plan: Plan | undefined;
  let lastHeight = 0;
  let peak: number | null = null;
  let tail: string[] = [];
  // A failed `pre-upgrade`: its own output is the report's log tail, not the old binary's.
  let preUpgradeTail: string[] | undefined;
  let scratchBytes = 0;
  const stopNode = async () => {
    if (node === undefined) return;
    await node.stop();
    if (newBinary) peak = node.peakRss() || null;
    tail = node.tail();
  };
  try {
    // 2. The copy.
    say(`copying ${layout.dataDir} (${space.mode}: ${space.reason}) into ${scratch}`);
    const copyStart = performance.now();
    await fs.mkdir(path.join(scratch, 'data'), { recursive: true, mode: 0o700 });
    await fs.mkdir(path.join(scratch, 'home'), { mode: 0o700 });
    const placer = createPlacer({ mode: space.mode, logger, backupDir: rehearsalDir });
    const bar = options.events && progressOnBus({ events: options.events, event: 'backup-progress', what: `the copy of ${layout.dataDir}` });
    let copiedBytes = 0;
    const onBytes = (n: number) => bar?.update((copiedBytes += n), Math.max(space.dataBytes, copiedBytes));
    const copied = await copyLiveData({ dataDir: layout.dataDir, target: path.join(scratch, 'data'), placer, logger, signal, onBytes }).finally(() =>
      bar?.finish(),
    );
    phases.copy = seconds(performance.now() - copyStart);
    logger.info({ scratch, mode: space.mode, databases: copied.databases, ms: phases.copy * 1000 }, 'rehearsal: data copied');
    say(`copied in ${phases.copy} s`);
    const keys = newScratchKeys();
    const ports = await scratchPorts();
    const chainId = `${genesis.chainId.slice(0, 40)}-rehearsal`;
    await writeScratchConfig({
      liveConfigDir: path.join(layout.home, 'config'),
      liveGenesis: genesisFile,
      scratchHome: scratch,
      ports,
      keys,
      chainId,
    });
    const scratchLayout = { ...layoutFor({ home: scratch, name: layout.name }), recase: layout.recase };
    await placeBinaries(scratchLayout, binaries);
    const operator = options.operator ?? operatorAddress(genesis.prefix ?? 'cosmos', keys.address);
    const nodeEnv = scratchEnv(layout, scratch);
    const flags = ['--home', scratch, ...listenerFlags(ports), ...options.nodeArgs];
    const deadline = performance.now() + options.timeoutMs;
    signal.throwIfAborted();

    // 3. The old binary halts at the next block.
    say(`${binaries.oldBinary} in-place-testnet ${chainId} ${operator} --trigger-testnet-upgrade ${upgrade}`);
    const haltStart = performance.now();
    const args = ['in-place-testnet', chainId, operator, ...flags.slice(0, 2), '--trigger-testnet-upgrade', upgrade, '--skip-confirmation', ...flags.slice(2)];
    node = startScratchNode({ binary: binaries.oldBinary, args, env: nodeEnv, logFile: path.join(scratch, 'node.log') });
    if (node.pid !== undefined) await recordScratchNode(scratch, node.pid);
    const oldExit = await waitHalt(node, { file: scratchLayout.upgradeInfoFile, upgrade }, deadline, signal);
    tail = node.tail();
    const haltedAt = performance.now();
    const info = await readUpgradeInfo(scratchLayout.upgradeInfoFile);
    if (oldExit === 'timeout' || info.status !== 'valid' || info.plan.name !== upgrade) {
      if (oldExit === 'timeout') await stopNode();
      const said = tail.find((l) => /unknown command "in-place-testnet"/.test(l));
      throw new ChainvisorError(
        'CHAINVISOR_REHEARSAL_UNAVAILABLE',
        said
          ? `the current binary ${binaries.oldBinary} has no in-place-testnet command: ${said.trim()}`
          : `the current binary did not halt for upgrade "${upgrade}" on the copy (${oldExit === 'timeout' ? `still running after ${options.timeoutMs / 1000} s` : describe(oldExit)}${info.status === 'valid' ? `, it wrote a plan for "${info.plan.name}"` : ', no upgrade-info.json'}); its last lines:\n${tail.slice(-10).join('\n')}`,
        { hint: said ? sdkHint : `read ${path.join(scratch, 'node.log')} with --keep; the in-place-testnet of the current binary must halt for the upgrade` },
      );
    }
    plan = info.plan;
    phases.halt = seconds(haltedAt - haltStart);
    say(`halted for "${upgrade}" at height ${plan.height} after ${phases.halt} s`);

    // 4. chainvisor's own upgrade sequence on the scratch, then the new binary.
    const scratchConfig: Config = { ...config, home: scratch, unsafeSkipBackup: true, customPreUpgrade: '', allowDownloadBinaries: false, restartDelay: 0 };
    const saved = pushEnv(nodeEnv);
    const preUpgradeLines: string[] = [];
    try {
      const sequenceLogger = keepingOutput(logger, 'pre-upgrade', preUpgradeLines);
      const sequence = { config: scratchConfig, layout: scratchLayout, logger: sequenceLogger, signal, preUpgradeArgs: ['--home', scratch] };
      await runUpgrade(planTarget(scratchLayout, plan), { ctx: sequence, delay: false });
    } catch (error) {
      if (signal.aborted) throw error;
      if (preUpgradeLines.length > 0) preUpgradeTail = preUpgradeLines;
      throw new UpgradeFailed(`the upgrade sequence failed on the copy: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      saved();
    }
    node = startScratchNode({
      binary: path.join(scratchLayout.currentLink, 'bin', layout.name),
      args: ['start', ...flags],
      env: nodeEnv,
      logFile: path.join(scratch, 'node.log'),
    });
    newBinary = true;
    if (node.pid !== undefined) await recordScratchNode(scratch, node.pid);
    say(`started the new binary; waiting for block ${plan.height}`);
    const first = await waitHeight(node, ports.rpc, plan.height, deadline, signal, (h) => (lastHeight = h));
    if (first !== 'reached') throw new UpgradeFailed(stalled(node, first, plan.height, options.timeoutMs));
    const firstAt = performance.now();
    phases.migration = seconds(firstAt - haltedAt);
    say(`block ${plan.height} committed by the new binary: migration ${phases.migration} s`);
    const target = plan.height + options.blocks;
    const after = await waitHeight(node, ports.rpc, target, deadline, signal, (h) => (lastHeight = h));
    if (after !== 'reached') throw new UpgradeFailed(stalled(node, after, target, options.timeoutMs));
    phases.blocks = seconds(performance.now() - firstAt);
    say(`${options.blocks} blocks after the upgrade in ${phases.blocks} s`);
    return await finish('passed', null);
  } catch (error) {
    if (error instanceof UpgradeFailed) {
      say(`failed: ${error.message}`);
      return await finish('failed', error.message);
    }
    throw error;
  } finally {
    await stopNode().catch(() => undefined);
    if (!options.keep) await fs.rm(scratch, { recursive: true, force: true });
  }

  async function finish(result: 'passed' | 'failed', reason: string | null): Promise<RehearsalReport> {
    await stopNode();
    scratchBytes = await ownDiskUse(scratch);
    return {
      upgrade,
      result,
      reason,
      height: plan?.height ?? null,
      migration_seconds: phases.migration,
      blocks_after_upgrade: plan === undefined ? 0 : Math.max(0, lastHeight - plan.height),
      peak_rss_bytes: peak,
      scratch_bytes: scratchBytes,
      phases,
      log_tail: result === 'failed' ? (preUpgradeTail ?? tail) : [],
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      binary_sha256: binarySha,
      ...(options.keep ? { kept: scratch } : {}),
    };
  }
}

/** The new binary's digest, for the report (findBinaries saw a regular file there). */
async function sha256(file: string, signal: AbortSignal): Promise<string> {
  const digest = await hashFile(file, { signal });
  if (digest.status === 'ok') return digest.hex;
  const why = digest.status === 'missing' ? 'it is gone' : digest.reason;
  throw new ChainvisorError('CHAINVISOR_REHEARSAL_UNAVAILABLE', `cannot read the upgrade binary ${file}: ${why}`, {
    hint: "install it again with 'chainvisor add-upgrade <name> <path> --force'",
  });
}
