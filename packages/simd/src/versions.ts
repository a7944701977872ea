/**
 * The versions of the simulated node. Each built binary is one of these: the module consensus versions
 * of its code, the upgrade handlers it registers (each version keeps the previous ones) and the store
 * upgrades it declares for the StoreLoader.
 *
 *   genesis      no handlers
 *   v2           handler "v2": bank 4 → 5, adds module newmod; store upgrade "v2" adds store newmod
 *   v3           handlers "v2" and "v3" ("v3": staking 5 → 6, adds feemarket; store upgrade adds feemarket)
 *   v2-broken    like v2, but its "v2" handler fails (the node halts without committing the block)
 *
 * Started before its plan is due, v2 (or v3) is the "binary updated too early" case.
 */
import { runMigrations } from './upgrade/migrations.js';
import type { StoreUpgrades, UpgradeHandler, VersionMap } from './upgrade/types.js';

export interface SimVersion {
  name: string;
  description: string;
  /** Consensus version of every module of this binary's code; stored at genesis (upgrade's own is 2). */
  modules: VersionMap;
  handlers: Readonly<Record<string, UpgradeHandler>>;
  storeUpgrades: Readonly<Record<string, StoreUpgrades>>;
}

const genesisModules: VersionMap = { auth: 5, bank: 4, consensus: 1, gov: 5, staking: 5, upgrade: 2 };
const v2Modules: VersionMap = { ...genesisModules, bank: 5, newmod: 1 };
const v3Modules: VersionMap = { ...v2Modules, staking: 6, feemarket: 1 };

const v2StoreUpgrades: StoreUpgrades = { added: ['newmod'] };
const v3StoreUpgrades: StoreUpgrades = { added: ['feemarket'] };

const failingHandler: UpgradeHandler = async () => {
  throw new Error('migration of module bank failed: this build (v2-broken) is made to fail its upgrade');
};

export const simVersions: Readonly<Record<string, SimVersion>> = {
  genesis: {
    name: 'genesis',
    description: 'the first version: no upgrade handlers',
    modules: genesisModules,
    handlers: {},
    storeUpgrades: {},
  },
  v2: {
    name: 'v2',
    description: 'handler for upgrade "v2" (bank 4→5, new module newmod), store upgrade adding newmod',
    modules: v2Modules,
    handlers: { v2: runMigrations(v2Modules) },
    storeUpgrades: { v2: v2StoreUpgrades },
  },
  v3: {
    name: 'v3',
    description: 'handlers for "v2" and "v3" (staking 5→6, new module feemarket), store upgrades of both',
    modules: v3Modules,
    handlers: { v2: runMigrations(v2Modules), v3: runMigrations(v3Modules) },
    storeUpgrades: { v2: v2StoreUpgrades, v3: v3StoreUpgrades },
  },
  'v2-broken': {
    name: 'v2-broken',
    description: 'test variant: the handler for "v2" fails',
    modules: v2Modules,
    handlers: { v2: failingHandler },
    storeUpgrades: { v2: v2StoreUpgrades },
  },
};

export const simVersionNames = Object.keys(simVersions);
