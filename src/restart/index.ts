/** The restart policy for a node that exits with no upgrade to apply (CHAINVISOR_RESTART_*). */
export { RestartPolicy, type RestartDecision, type RestartSettings, healthyRunMs, maxBackoffMs } from './policy.js';
export { afterNodeExit, type AfterExitContext, type NodeExit } from './after-exit.js';
