export { exitCodeOf, type ExitStatus } from './node-process.js';
export { runUpgrade, type UpgradeContext } from './sequence.js';
export { Supervisor, type SupervisorOptions } from './supervisor.js';
