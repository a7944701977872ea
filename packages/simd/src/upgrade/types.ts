/** The upgrade module's data, as the application registers it (upgrade-module.md §2.6). */
import type { KVStore } from '../store/kv.js';
import type { SimLogger } from '../util/log.js';

/** A scheduled upgrade (upgrade-module.md §2.1). `time` and `upgraded_client_state` are deprecated and always unset. */
export interface Plan {
  name: string;
  height: number;
  info: string;
}

/** Module name → consensus version. */
export type VersionMap = Readonly<Record<string, number>>;

export interface UpgradeContext {
  height: number;
  log: SimLogger;
  /** The whole application state of the block being executed. */
  state: KVStore;
}

/** Runs the migrations of one upgrade: takes the stored version map, returns the new one. */
export type UpgradeHandler = (ctx: UpgradeContext, plan: Plan, fromVM: VersionMap) => Promise<VersionMap>;

/** Store migrations a binary performs before it runs the chain at its upgrade height (the StoreLoader). */
export interface StoreUpgrades {
  added?: readonly string[];
  renamed?: ReadonlyArray<{ from: string; to: string }>;
  deleted?: readonly string[];
}
