/**
 * The StoreLoader (upgrade-module.md §2.6): store migrations a binary declares per upgrade name, performed once,
 * when the binary starts on the block at which the previous binary halted — only for the plan whose
 * name matches, never for a skipped height. Because they are applied in the same batch as that block,
 * a crash before the block is committed simply applies them again on the next start, and once the
 * block is committed the height no longer matches, so a restart never applies them twice.
 */
import type { KVStore } from '../store/kv.js';
import { mountStore, recordStoreUpgrade, renameStore, unmountStore } from '../store/stores.js';
import type { SimLogger } from '../util/log.js';
import type { Plan, StoreUpgrades } from './types.js';

export interface StoreLoaderInput {
  /** upgrade-info.json as the previous binary wrote it. */
  upgradeInfo: Plan | undefined;
  /** This binary's store upgrades, by plan name. */
  declared: Readonly<Record<string, StoreUpgrades>>;
  lastHeight: number;
  skipHeights: ReadonlySet<number>;
}

/** The store upgrades to apply now, with the plan they belong to, or undefined. */
export function pendingStoreUpgrades(input: StoreLoaderInput): { plan: Plan; upgrades: StoreUpgrades } | undefined {
  const info = input.upgradeInfo;
  if (info === undefined || !Object.hasOwn(input.declared, info.name)) return undefined;
  if (input.skipHeights.has(info.height) || info.height !== input.lastHeight + 1) return undefined;
  const upgrades = input.declared[info.name] as StoreUpgrades;
  const count = (upgrades.added?.length ?? 0) + (upgrades.renamed?.length ?? 0) + (upgrades.deleted?.length ?? 0);
  return count === 0 ? undefined : { plan: info, upgrades };
}

export async function applyStoreUpgrades(state: KVStore, plan: Plan, upgrades: StoreUpgrades, log: SimLogger): Promise<void> {
  const height = plan.height;
  for (const name of upgrades.added ?? []) mountStore(state, name, height);
  for (const { from, to } of upgrades.renamed ?? []) await renameStore(state, from, to, height);
  for (const name of upgrades.deleted ?? []) await unmountStore(state, name);
  recordStoreUpgrade(state, plan.name, height);
  log.info(`applying store upgrades for "${plan.name}" at height ${height}`, {
    module: 'store',
    added: (upgrades.added ?? []).join(',') || undefined,
    renamed: (upgrades.renamed ?? []).map((r) => `${r.from}->${r.to}`).join(',') || undefined,
    deleted: (upgrades.deleted ?? []).join(',') || undefined,
  });
}
