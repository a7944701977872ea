export {
  type Plan,
  type PlanParse,
  type UpgradeInfoRead,
  maxUpgradeInfoBytes,
  parseUpgradeInfo,
  readUpgradeInfo,
  serializePlan,
  upgradeInfoError,
} from './upgrade-info.js';
export { skipHeights } from './skip-heights.js';
