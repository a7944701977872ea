/**
 * Process identity: whether a pid is alive, its start time (so a reused pid is not mistaken for the
 * recorded process) and its environment. Used by the home lock, the node record and work-folder cleanup.
 * Standbys: programs forked ahead of need, so that a switch does not pay for forking the supervisor.
 * A child's output read line by line in bounded memory, and the words for how it ended.
 */
export { describeExit, type ExitStatus } from './exit.js';
export { findProcessesByEnv, isProcessAlive, isProcessAliveNow, processStartedAtMs, processStartToken, readProcessEnv } from './identity.js';
export { eachLine, type OnLine } from './lines.js';
export { type Standby, type StandbyOptions, startStandby } from './standby.js';
