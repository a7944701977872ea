export { type Plan, type PlanParse, type UpgradeInfoRead, parseUpgradeInfo, readUpgradeInfo, serializePlan } from './upgrade-info.js';
export { skipHeights } from './skip-heights.js';
