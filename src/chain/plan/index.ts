export { skipHeights } from './skip-heights.js';
export {
  maxUpgradeInfoBytes,
  parseUpgradeInfo,
  type Plan,
  type PlanParse,
  readUpgradeInfo,
  serializePlan,
  upgradeInfoError,
  type UpgradeInfoRead,
} from './upgrade-info.js';
