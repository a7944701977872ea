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
import type { UrlPolicy } from '../policy.js';
import { readStagedRecords, type StagedRecord, updateStagedRecord } from './record.js';

export interface StageResult {
  /**
   * `downloaded`: fetched now; `staged`: chainvisor staged it earlier for this Info; `installed`: put there
   * by the operator; `occupied` (with `keepOther`): chainvisor staged it for another Info, left in place.
   */
  status: 'downloaded' | 'staged' | 'installed' | 'occupied';
  dir: string;
  binary: string;
  /** The source the binary came from (CHAINVISOR_UPGRADE_SOURCES other than `plan` only). */
  source?: string;
  /** `occupied`: what the binary in the folder was staged for (its record's Info, and proposal if one). */
  occupiedBy?: { info: string; proposal?: string };
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
  /** A binary chainvisor staged for another Info stays, and nothing is fetched (`occupied`). Default false: it is moved aside and restaged. */
  keepOther?: boolean;
  /** Staged for this governance proposal (its id) while the vote runs: recorded, until the plan's staging takes it. Default: the plan's own. */
  proposal?: string;
  /** The URL policy of the download and its sources. Default: the configuration's. */
  policy?: UrlPolicy;
}

/**
 * Stages one plan's binary; calls for the same folder in this process run one after the other, each seeing
 * what the one before did (see `oneAtATime`).
 */
export async function stagePlan(options: StageOptions): Promise<StageResult> {
  const target = planTarget(options.layout, options.plan);
  return oneAtATime(binaryDirPath(options.layout, target.dir), () => stageInto(target, options));
}

async function stageInto(target: UpgradeTarget, options: StageOptions): Promise<StageResult> {
  const { plan, config, layout, logger } = options;
  const { dir, binary } = target;
  const record = (await readStagedRecords(layout))[dir];
  if (await isFile(binary)) {
    if (record === undefined) return { status: 'installed', dir, binary };
    if (record.info === plan.info) {
      // Planned again (a cancelled plan scheduled anew with the same Info), or a proposal's binary now the
      // plan's: the binary kept is this plan's. A proposal never takes a binary from the plan.
      const taken = retaken(record, options);
      if (taken !== undefined) await updateStagedRecord(layout, dir, taken);
      return { status: 'staged', dir, binary, ...(record.source === undefined ? {} : { source: record.source }) };
    }
    // Staged by chainvisor for another Info: the plan changed. Never overwrite silently; never the running one.
    if ((await readCurrentDir(layout)) === dir) return { status: 'installed', dir, binary };
    if (options.keepOther === true)
      return { status: 'occupied', dir, binary, occupiedBy: { info: record.info, ...(record.proposal === undefined ? {} : { proposal: record.proposal }) } };
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
    ...(options.policy ? { policy: options.policy } : {}),
  });
  const source = done.source === undefined ? {} : { source: done.source };
  const proposal = options.proposal === undefined ? {} : { proposal: options.proposal };
  await updateStagedRecord(layout, dir, { name: plan.name, height: plan.height, info: plan.info, stagedAt: new Date().toISOString(), ...source, ...proposal });
  return { status: 'downloaded', dir, binary, ...source };
}

/**
 * The record of a binary with this Info, as this staging leaves it (undefined: unchanged). The plan's
 * staging takes it (not cancelled, no proposal, its name and height); a proposal's takes only one no plan
 * holds (a cancelled plan's, or a proposal's).
 */
function retaken(record: StagedRecord, options: StageOptions): StagedRecord | undefined {
  const { plan } = options;
  const { cancelledAt: _cancelled, proposal: _proposal, ...kept } = record;
  if (options.proposal !== undefined && record.proposal === undefined && record.cancelledAt === undefined) return undefined;
  const next: StagedRecord = { ...kept, name: plan.name, height: plan.height, ...(options.proposal === undefined ? {} : { proposal: options.proposal }) };
  const same = next.name === record.name && next.height === record.height && next.proposal === record.proposal && record.cancelledAt === undefined;
  return same ? undefined : next;
}

/**
 * One staging of a folder at a time in this process: the plan's staging, a proposal's, the halt's set
 * aside and the mark of a cancelled plan each read the record, maybe download and install, and write the
 * record; interleaved, one would replace the other's binary or record. In-process only: `prepare-upgrade`
 * takes no home lock, so run beside `chainvisor run` it is not serialized with it (each download still
 * works in its own folder and installs in one rename; the record written last wins).
 */
const staging = new Map<string, Promise<void>>();

async function oneAtATime<T>(folder: string, run: () => Promise<T>): Promise<T> {
  const before = staging.get(folder) ?? Promise.resolve();
  const result = before.then(run);
  const done = result.then(
    () => undefined,
    () => undefined,
  );
  staging.set(folder, done);
  try {
    return await result;
  } finally {
    if (staging.get(folder) === done) staging.delete(folder);
  }
}

/**
 * A plan cancelled on chain: the binary chainvisor staged for it stays in its folder, marked not planned
 * (`cancelledAt`), so that `status` says so and the same plan scheduled again needs no second download.
 * Nothing switches to it without a plan: it is used only when the node halts for a plan of its name.
 */
export async function markNotPlanned(options: { plan: Pick<Plan, 'name'>; layout: Layout }): Promise<boolean> {
  const { layout } = options;
  const dir = planDir(layout, options.plan.name);
  return oneAtATime(binaryDirPath(layout, dir), async () => {
    const record = (await readStagedRecords(layout))[dir];
    if (record === undefined || record.cancelledAt !== undefined || (await readCurrentDir(layout)) === dir) return false;
    await updateStagedRecord(layout, dir, { ...record, cancelledAt: new Date().toISOString() });
    return true;
  });
}

/**
 * At the halt, before the binary step: a binary chainvisor staged (for a plan, a cancelled plan or a
 * proposal) serves the plan the node halted for only when it was staged for that plan's Info; else it
 * is moved aside (never deleted), and the halt installs the plan's own. A plan proposed again under the
 * same name is often so because the first binary was wrong. One the operator installed (no record) is
 * not touched. Returns where it was moved, if it was.
 */
export async function setAsideOtherInfo(options: { target: UpgradeTarget; layout: Layout; logger: Logger }): Promise<string | undefined> {
  const { target, layout, logger } = options;
  const { plan, dir } = target;
  return oneAtATime(binaryDirPath(layout, dir), async () => {
    const record = (await readStagedRecords(layout))[dir];
    if (record === undefined || record.info === plan.info || (await readCurrentDir(layout)) === dir) return undefined;
    const was =
      record.proposal !== undefined ? `proposal #${record.proposal}` : record.cancelledAt !== undefined ? 'a plan cancelled on chain' : 'an earlier plan';
    const aside = await moveAside(
      binaryDirPath(layout, dir),
      logger,
      `a staged upgrade folder was staged for ${was}, for another Info than the plan the node halted for (was ${record.info.slice(0, 200)})`,
    );
    await updateStagedRecord(layout, dir, undefined);
    return aside;
  });
}
