/**
 * Process identity: whether a pid is alive, its start time (so a reused pid is not mistaken for the
 * recorded process) and its environment. Used by the home lock, the node record and work-folder cleanup.
 * The files a process holds open (open-files.ts). A program run to its end (run.ts); a child's output read line by line in bounded memory, and the words for how it ended.
 */
export { describeExit, type ExitStatus } from './exit.js';
export { findProcessesByEnv, isProcessAlive, isProcessAliveNow, processStartedAtMs, processStartToken, readProcessEnv } from './identity.js';
export { eachLine, type OnLine } from './lines.js';
export { readOpenFiles } from './open-files.js';
export { type RunningProgram, type RunOptions, runProgram, type RunResult, startProgram } from './run.js';
