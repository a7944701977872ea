/** The supervisor's events and their bus (bus.ts); the after-upgrade and twin-check events' data. */
export { type AfterUpgrade, afterUpgradeEvents, describeAfterUpgrade } from './after-upgrade.js';
export {
  createEventBus,
  type EventBus,
  type EventListener,
  type EventName,
  type NotableEvent,
  notableEvents,
  type SupervisorEvent,
  type UpgradeRef,
} from './bus.js';
export { describeTwinCheck, twinCheckEvents, type TwinCheckReport } from './twin-check.js';
