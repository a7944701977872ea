/**
 * Staging one scheduled plan: make `upgrades/<dir>/bin/$DAEMON_NAME` a verified binary before the
 * halt, through the same download code path as the halt itself (resolve Info → fetch → verify →
 * extract the whole archive tree → one rename into place). An operator-installed binary is never
 * replaced; one chainvisor staged for a different Info is moved aside (never deleted) and restaged. One
 * whose plan was cancelled stays, marked not planned, until a plan of its name takes it back or not.
 */
import type { Plan } from '../../chain/index.js';
import type { Config } from '../../config/index.js';
import { binaryDirPath, isFile, type Layout, moveAside, planDir, planTarget, readCurrentDir, type UpgradeTarget } from '../../home/layout/index.js';
import type { EventBus } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import type { Downloader } from '../index.js';
import { readStagedRecords, updateStagedRecord } from './record.js';

/** The downloader: `downloadUpgradeBinary` from src/download, injectable for tests. */

export interface StageResult {
  /** `downloaded`: fetched now; `staged`: chainvisor staged it earlier for this Info; `installed`: put there by the operator. */
  status: 'downloaded' | 'staged' | 'installed';
  dir: string;
  binary: string;
  /** The source the binary came from (CHAINVISOR_UPGRADE_SOURCES other than `plan` only). */
  source?: string;
}

export interface StageOptions {
  plan: Plan;
  config: Config;
  layout: Layout;
  logger: Logger;
  signal?: AbortSignal;
  /** Receives the download's progress (`download-progress`: chainvisor_download_bytes_total, status, the board). */
  events?: EventBus;
  /** Fires when the node halts for this plan: from then the sources are asked as at the height. */
  halted?: AbortSignal;
  download?: Downloader;
}

export async function stagePlan(options: StageOptions): Promise<StageResult> {
  const { plan, config, layout, logger } = options;
  const target = planTarget(layout, plan);
  const { dir, binary } = target;
  const record = (await readStagedRecords(layout))[dir];
  if (await isFile(binary)) {
    if (record === undefined) return { status: 'installed', dir, binary };
    if (record.info === plan.info) {
      // Planned again (a cancelled plan scheduled anew with the same Info): the binary kept is this plan's.
      if (record.height !== plan.height || record.name !== plan.name || record.cancelledAt !== undefined) {
        const { cancelledAt: _cancelled, ...planned } = record;
        await updateStagedRecord(layout, dir, { ...planned, name: plan.name, height: plan.height });
      }
      return { status: 'staged', dir, binary, ...(record.source === undefined ? {} : { source: record.source }) };
    }
    // Staged by chainvisor for another Info: the plan changed. Never overwrite silently; never the running one.
    if ((await readCurrentDir(layout)) === dir) return { status: 'installed', dir, binary };
    await moveAside(
      binaryDirPath(layout, dir),
      logger,
      `a staged upgrade folder was for another Info: the plan's Info changed since this binary was staged (was ${record.info.slice(0, 200)})`,
    );
    await updateStagedRecord(layout, dir, undefined);
  }
  const download = options.download ?? (await import('../index.js')).downloadUpgradeBinary;
  // Ahead of the height (staging, prepare-upgrade): the sources get the whole download policy.
  const done = await download({
    target,
    config,
    layout,
    logger,
    ahead: true,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.events ? { events: options.events } : {}),
    ...(options.halted ? { halted: options.halted } : {}),
  });
  const source = done.source === undefined ? {} : { source: done.source };
  await updateStagedRecord(layout, dir, { name: plan.name, height: plan.height, info: plan.info, stagedAt: new Date().toISOString(), ...source });
  return { status: 'downloaded', dir, binary, ...source };
}

/**
 * A plan cancelled on chain: the binary chainvisor staged for it stays in its folder, marked not planned
 * (`cancelledAt`), so that `status` says so and the same plan scheduled again needs no second download.
 * Nothing switches to it without a plan: it is used only when the node halts for a plan of its name.
 */
export async function markNotPlanned(options: { plan: Pick<Plan, 'name'>; layout: Layout }): Promise<boolean> {
  const { layout } = options;
  const dir = planDir(layout, options.plan.name);
  const record = (await readStagedRecords(layout))[dir];
  if (record === undefined || record.cancelledAt !== undefined || (await readCurrentDir(layout)) === dir) return false;
  await updateStagedRecord(layout, dir, { ...record, cancelledAt: new Date().toISOString() });
  return true;
}

/**
 * At the halt: a binary kept from a cancelled plan serves a plan of its name only when that plan has the
 * same Info; else it is moved aside (never deleted), and the halt installs the plan's own. A plan
 * proposed again under the same name is often so because the first binary was wrong.
 */
export async function setAsideNotPlanned(options: { target: UpgradeTarget; layout: Layout; logger: Logger }): Promise<boolean> {
  const { target, layout, logger } = options;
  const { plan, dir } = target;
  const record = (await readStagedRecords(layout))[dir];
  if (record?.cancelledAt === undefined || record.info === plan.info || (await readCurrentDir(layout)) === dir) return false;
  await moveAside(
    binaryDirPath(layout, dir),
    logger,
    `a staged upgrade folder was kept from a plan cancelled on chain, for another Info than the plan the node halted for (was ${record.info.slice(0, 200)})`,
  );
  await updateStagedRecord(layout, dir, undefined);
  return true;
}
