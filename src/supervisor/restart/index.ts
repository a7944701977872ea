/** The restart policy for a node that exits with no upgrade to apply (CHAINVISOR_RESTART_*). */
export { type AfterExitContext, afterNodeExit, type NodeExit } from './after-exit.js';
export { healthyRunMs, maxBackoffMs, type RestartDecision, RestartPolicy, type RestartSettings } from './policy.js';
