/**
 * The pre-block hook, run before anything else in every block. Mirrors the SDK's
 * x/upgrade PreBlocker rule for rule and message for message, because supervisors and operators
 * match on these lines.
 */
import type { KVStore } from '../store/kv.js';
import { GoPanic } from '../util/errors.js';
import type { SimLogger } from '../util/log.js';
import { ChainHalt } from './halt.js';
import {
  clearPlan,
  getLastCompletedUpgrade,
  getModuleVersions,
  getPlan,
  getProtocolVersion,
  setDone,
  setModuleVersions,
  setProtocolVersion,
} from './keeper.js';
import { isDue } from './plan.js';
import type { Plan, UpgradeHandler } from './types.js';

export interface PreBlockContext {
  /** The upgrade module's store. */
  kv: KVStore;
  /** The whole application state of this block, handed to upgrade handlers. */
  state: KVStore;
  height: number;
  log: SimLogger;
  skipHeights: ReadonlySet<number>;
  handlers: Readonly<Record<string, UpgradeHandler>>;
  /** True for the first block this process executes: check that the binary is not a downgrade. */
  verifyDowngrade: boolean;
  /** Writes `<home>/data/upgrade-info.json` (the plan, at the current block height). */
  writeUpgradeInfo(plan: Plan, height: number): Promise<void>;
}

export function upgradeNeededMessage(plan: Plan): string {
  return `UPGRADE "${plan.name}" NEEDED at height: ${plan.height}: ${plan.info}`;
}

export async function preBlock(ctx: PreBlockContext): Promise<void> {
  const { kv, height, log } = ctx;
  const plan = await getPlan(kv);
  const due = plan !== undefined && isDue(plan, height);
  const has = (name: string) => Object.hasOwn(ctx.handlers, name);

  if (ctx.verifyDowngrade && (!due || ctx.skipHeights.has(height))) {
    const last = await getLastCompletedUpgrade(kv);
    if (last !== undefined && !has(last.name)) {
      const appVersion = await getProtocolVersion(kv);
      const message = `wrong app version ${appVersion}, upgrade handler is missing for ${last.name} upgrade plan`;
      log.error(message, { module: 'x/upgrade' });
      throw new ChainHalt('wrong-app-version', height, message);
    }
  }

  if (plan === undefined) return;

  if (due) {
    if (ctx.skipHeights.has(height)) {
      log.info(`UPGRADE "${plan.name}" SKIPPED at ${plan.height}: ${plan.info}`, { module: 'x/upgrade' });
      clearPlan(kv);
      return;
    }
    const handler = ctx.handlers[plan.name];
    if (handler === undefined) {
      // Logged before the file is written: a supervisor may stop the node the moment the file appears,
      // and the operator should still find the line in the node's log.
      const message = upgradeNeededMessage(plan);
      log.error(message, { module: 'x/upgrade' });
      await ctx.writeUpgradeInfo(plan, height);
      throw new ChainHalt('upgrade-needed', height, message);
    }
    log.info(`applying upgrade "${plan.name}" at height: ${plan.height}`, { module: 'x/upgrade' });
    await applyUpgrade(ctx, plan, handler);
    return;
  }

  if (has(plan.name)) {
    const message = `BINARY UPDATED BEFORE TRIGGER! UPGRADE "${plan.name}" - in binary but not executed on chain. Downgrade your binary`;
    log.error(message, { module: 'x/upgrade' });
    throw new ChainHalt('binary-early', height, message);
  }
}

/** ApplyUpgrade: run the handler on the stored versions, store its result, bump the protocol version, mark done. */
async function applyUpgrade(ctx: PreBlockContext, plan: Plan, handler: UpgradeHandler): Promise<void> {
  const { kv, height } = ctx;
  const fromVM = await getModuleVersions(kv);
  let updated;
  try {
    updated = await handler({ height, log: ctx.log, state: ctx.state }, plan, fromVM);
  } catch (error) {
    // A panic is not an error the handler returns: it ends the process (main prints it as Go does).
    if (error instanceof GoPanic) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    ctx.log.error(`upgrade "${plan.name}" failed: ${reason}`, { module: 'x/upgrade', height });
    throw new ChainHalt('upgrade-failed', height, `upgrade "${plan.name}" failed at height ${height}: ${reason}`, {
      cause: error,
    });
  }
  setModuleVersions(kv, updated);
  setProtocolVersion(kv, (await getProtocolVersion(kv)) + 1);
  clearPlan(kv);
  setDone(kv, plan.name, height);
}
