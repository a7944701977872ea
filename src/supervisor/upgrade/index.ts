export { abandonSwitch, restartsAfterSwitch, type Switched } from './7-restart.js';
export { UpgradeFollows } from './8-follow.js';
export { runUpgrade, type UpgradeOptions } from './compose.js';
export type { UpgradeContext } from './context.js';
