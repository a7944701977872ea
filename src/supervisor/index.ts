export { exitCodeOf, type ExitStatus } from './node-process.js';
export { Supervisor, type SupervisorOptions } from './supervisor.js';
export { runUpgrade, type UpgradeContext } from './upgrade/index.js';
