export { runUpgrade, type UpgradeOptions } from './compose.js';
export type { UpgradeContext } from './context.js';
export { UpgradeFollows } from './follow.js';
export type { StartOptions } from './start-node.js';
