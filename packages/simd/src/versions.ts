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
 * Started before its plan is due, v2 (or v3) is the "binary updated too early" case. Every version
 * has the `in-place-testnet` command (SDK v0.50.4+). Tests build variants of these with
 * VersionOptions (withOptions): without that command, with handlers that panic or take long.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { runMigrations } from './upgrade/migrations.js';
import type { StoreUpgrades, UpgradeHandler, VersionMap } from './upgrade/types.js';
import { parseDuration } from './util/duration.js';
import { GoPanic } from './util/errors.js';

export interface SimVersion {
  name: string;
  description: string;
  /** Consensus version of every module of this binary's code; stored at genesis (upgrade's own is 2). */
  modules: VersionMap;
  handlers: Readonly<Record<string, UpgradeHandler>>;
  storeUpgrades: Readonly<Record<string, StoreUpgrades>>;
  /** The binary has `in-place-testnet` (Cosmos SDK v0.50.4+'s AddTestnetCreatorCommand). */
  inPlaceTestnet: boolean;
}

/** How a variant differs from the version it is built from (buildVersions' `variants`). */
export interface VersionOptions {
  /** false: the binary has no `in-place-testnet` command (a chain on an SDK before v0.50.4). Default true. */
  inPlaceTestnet?: boolean;
  /** Every upgrade handler of the version waits this long (Go duration, e.g. `5s`) before its migrations. */
  handlerDelay?: string;
  /**
   * Every upgrade handler of the version panics, as a Go handler does on state it cannot migrate: the
   * node prints `panic: …` on stderr and exits 2 (whatever --halt-mode), committing nothing.
   * `always`, or `state:<prefix>`: when a key of the application state starts with <prefix>
   * (e.g. `state:s/gov/p/`: the chain has a governance proposal).
   */
  handlerPanic?: string;
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
    inPlaceTestnet: true,
  },
  v2: {
    name: 'v2',
    description: 'handler for upgrade "v2" (bank 4→5, new module newmod), store upgrade adding newmod',
    modules: v2Modules,
    handlers: { v2: runMigrations(v2Modules) },
    storeUpgrades: { v2: v2StoreUpgrades },
    inPlaceTestnet: true,
  },
  v3: {
    name: 'v3',
    description: 'handlers for "v2" and "v3" (staking 5→6, new module feemarket), store upgrades of both',
    modules: v3Modules,
    handlers: { v2: runMigrations(v2Modules), v3: runMigrations(v3Modules) },
    storeUpgrades: { v2: v2StoreUpgrades, v3: v3StoreUpgrades },
    inPlaceTestnet: true,
  },
  'v2-broken': {
    name: 'v2-broken',
    description: 'test variant: the handler for "v2" fails',
    modules: v2Modules,
    handlers: { v2: failingHandler },
    storeUpgrades: { v2: v2StoreUpgrades },
    inPlaceTestnet: true,
  },
};

export const simVersionNames = Object.keys(simVersions);

/** Checks a VersionOptions; returns the problem, or undefined when it is usable. */
export function versionOptionsProblem(options: VersionOptions): string | undefined {
  if (options.handlerDelay !== undefined) {
    try {
      parseDuration(options.handlerDelay, 'handlerDelay');
    } catch (error) {
      return (error as Error).message;
    }
  }
  const panic = options.handlerPanic;
  if (panic !== undefined && panic !== 'always' && !/^state:.+/s.test(panic)) {
    return `invalid handlerPanic ${JSON.stringify(panic)}: expected "always" or "state:<key prefix>"`;
  }
  return undefined;
}

function panicking(handler: UpgradeHandler, condition: string): UpgradeHandler {
  return async (ctx, plan, fromVM) => {
    if (condition === 'always') throw new GoPanic(`upgrade handler "${plan.name}" of this build always panics`);
    const prefix = condition.slice('state:'.length);
    const found = await ctx.state.range(Buffer.from(prefix, 'utf8'));
    if (found.length > 0) {
      throw new GoPanic(`upgrade "${plan.name}": cannot migrate the state under ${JSON.stringify(prefix)} (${found.length} entries)`);
    }
    return handler(ctx, plan, fromVM);
  };
}

function delayed(handler: UpgradeHandler, delayMs: number): UpgradeHandler {
  return async (ctx, plan, fromVM) => {
    ctx.log.info(`upgrade handler "${plan.name}" works for ${delayMs} ms before its migrations`, { module: 'x/upgrade' });
    await sleep(delayMs);
    return handler(ctx, plan, fromVM);
  };
}

/** A variant of `base` named `name`: its handlers wrapped and its commands chosen per `options`. */
export function withOptions(base: SimVersion, name: string, options: VersionOptions): SimVersion {
  const problem = versionOptionsProblem(options);
  if (problem !== undefined) throw new Error(problem);
  const wrap = (handler: UpgradeHandler): UpgradeHandler => {
    let wrapped = handler;
    if (options.handlerPanic !== undefined) wrapped = panicking(wrapped, options.handlerPanic);
    if (options.handlerDelay !== undefined) wrapped = delayed(wrapped, parseDuration(options.handlerDelay));
    return wrapped;
  };
  const notes = [
    options.inPlaceTestnet === false ? 'no in-place-testnet' : undefined,
    options.handlerDelay === undefined ? undefined : `handlers wait ${options.handlerDelay}`,
    options.handlerPanic === undefined ? undefined : `handlers panic (${options.handlerPanic})`,
  ].filter((n) => n !== undefined);
  return {
    ...base,
    name,
    description: `${base.description}; variant of ${base.name}: ${notes.join(', ') || 'as it'}`,
    handlers: Object.fromEntries(Object.entries(base.handlers).map(([plan, handler]) => [plan, wrap(handler)])),
    inPlaceTestnet: options.inPlaceTestnet ?? base.inPlaceTestnet,
  };
}
