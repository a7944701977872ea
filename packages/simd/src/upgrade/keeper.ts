/**
 * The module's stored state, read and written on a module-scoped KV view (`s/upgrade/…`).
 * Functions, not a class: the handlers registered by the binary are passed where they matter.
 */
import type { KVReader, KVStore } from '../store/kv.js';
import { readUint64BE, uint64BE } from '../util/bytes.js';
import { invalidRequest } from './errors.js';
import { doneByte, doneKey, planKey, protocolVersionKey, versionByte, versionKey } from './keys.js';
import { decodePlan, encodePlan, validatePlan } from './plan.js';
import type { Plan, VersionMap } from './types.js';

export async function getPlan(kv: KVReader): Promise<Plan | undefined> {
  const bytes = await kv.get(planKey);
  return bytes === undefined ? undefined : decodePlan(bytes);
}

export function clearPlan(kv: KVStore): void {
  kv.delete(planKey);
}

/**
 * ScheduleUpgrade: validates the plan against the chain (at `height`) and replaces any scheduled one.
 * Scheduling at the current height is allowed (emergency upgrades in the same block).
 */
export async function scheduleUpgrade(kv: KVStore, plan: Plan, height: number): Promise<void> {
  validatePlan(plan);
  if (plan.height < height) throw invalidRequest('upgrade cannot be scheduled in the past');
  if ((await getDoneHeight(kv, plan.name)) !== 0) {
    throw invalidRequest(`upgrade with name ${plan.name} has already been completed`);
  }
  kv.set(planKey, encodePlan(plan));
}

/** The height at which the named upgrade was applied, 0 when it never was. */
export async function getDoneHeight(kv: KVReader, name: string): Promise<number> {
  const bytes = await kv.get(doneKey(name));
  return bytes === undefined ? 0 : Number(readUint64BE(bytes));
}

export function setDone(kv: KVStore, name: string, height: number): void {
  kv.set(doneKey(name), uint64BE(height));
}

export interface CompletedUpgrade {
  name: string;
  height: number;
}

/** The most recently applied upgrade (highest done height; ties go to the name sorting last). */
export async function getLastCompletedUpgrade(kv: KVReader): Promise<CompletedUpgrade | undefined> {
  const done = (await kv.range(Buffer.from([doneByte])))
    .map(([key, value]) => ({ name: key.subarray(1).toString('utf8'), height: Number(readUint64BE(value)) }))
    .reverse();
  let best: CompletedUpgrade | undefined;
  for (const upgrade of done) if (best === undefined || upgrade.height > best.height) best = upgrade;
  return best;
}

export async function getModuleVersions(kv: KVReader): Promise<Record<string, number>> {
  const map: Record<string, number> = {};
  for (const [key, value] of await kv.range(Buffer.from([versionByte]))) {
    map[key.subarray(1).toString('utf8')] = Number(readUint64BE(value));
  }
  return map;
}

export function setModuleVersions(kv: KVStore, versions: VersionMap): void {
  for (const [module, version] of Object.entries(versions)) kv.set(versionKey(module), uint64BE(version));
}

export async function getProtocolVersion(kv: KVReader): Promise<number> {
  const bytes = await kv.get(protocolVersionKey);
  return bytes === undefined ? 0 : Number(readUint64BE(bytes));
}

export function setProtocolVersion(kv: KVStore, version: number): void {
  kv.set(protocolVersionKey, uint64BE(version));
}
