/**
 * The simulated Cosmos node: builds its versions (launcher binaries, archives, Info JSON) and runs
 * them. Other folders, the demo and the tests use this file only.
 */
export { govAddress } from './core/accounts.js';
export type { RunSimdOptions } from './main.js';
export { runSimd } from './main.js';
export type { NodeAddresses } from './node/addresses.js';
export { addressesPath, readAddresses } from './node/addresses.js';
export { nodeExitCode } from './node/run-node.js';
export type { BuildVersionsOptions, BuiltVersion, BuiltVersions, VersionVariant } from './package/build-versions.js';
export { buildVersions, upgradeInfoFor } from './package/build-versions.js';
export { hostPlatform } from './package/info.js';
export { upgradeInfoJson } from './upgrade/upgrade-info.js';
export type { SimVersion, VersionOptions } from './versions.js';
export { simVersionNames, simVersions } from './versions.js';
