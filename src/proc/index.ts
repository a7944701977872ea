/**
 * Process identity: whether a pid is alive, its start time (so a reused pid is not mistaken for the
 * recorded process) and its environment. Used by the home lock, the node record and work-folder cleanup.
 */
export { findProcessesByEnv, isProcessAlive, processStartToken, processStartedAtMs, readProcessEnv } from './identity.js';
