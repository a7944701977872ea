/**
 * The node exited with no upgrade to apply. Every exit is reported as `node-exited` with
 * `{code, signal, pid, restarts}` (and `afterUpgrade` within 10 minutes of an upgrade, when a failure is
 * also logged as an error: a crash loop right after an upgrade must not look like routine restarts).
 * Then the policy decides: wait its backoff and start again, or hand the node's status back.
 * A stop signal (the abort signal) ends the wait at once.
 */
import { setTimeout as delay } from 'node:timers/promises';

import type { EventBus } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';
import { healthyRunMs, type RestartPolicy } from './policy.js';

export interface NodeExit {
  code: number | undefined;
  signal: string | undefined;
  pid: number | undefined;
  /** How long that node ran. */
  ranMs: number;
  /** "exit code 3", "signal SIGKILL". */
  described: string;
}

export interface AfterExitContext {
  policy: RestartPolicy;
  restartMax: number;
  events: EventBus;
  logger: Logger;
  /** Aborted when chainvisor is asked to stop. */
  signal: AbortSignal;
  lastUpgrade: { name: string; at: number } | undefined;
}

/** Resolves 'again' when the node is to be started again (after the wait), 'exit' otherwise. */
export async function afterNodeExit(exit: NodeExit, ctx: AfterExitContext): Promise<'again' | 'exit'> {
  const decision = ctx.policy.decide(exit, exit.ranMs);
  const upgrade = ctx.lastUpgrade && Date.now() - ctx.lastUpgrade.at < healthyRunMs ? ctx.lastUpgrade : undefined;
  const failed = exit.code !== 0 || exit.signal !== undefined;
  const text = decision.restart
    ? `node exited (${exit.described}) with no upgrade pending; restart ${decision.restarts} of ${ctx.restartMax} in ${decision.delayMs} ms`
    : `node exited (${exit.described}) with no upgrade pending; chainvisor exits with its status (${decision.why})`;
  const data = {
    code: exit.code,
    signal: exit.signal,
    pid: exit.pid,
    restarts: decision.restarts,
    restart: decision.restart,
    ...(upgrade ? { afterUpgrade: upgrade.name } : {}),
    // A crash soon after an upgrade: its log line (src/shared/events/log.ts) is loud and says how soon.
    ...(upgrade && failed ? { crashedAfterSeconds: Math.round((Date.now() - upgrade.at) / 1000) } : {}),
  };
  ctx.events.emit('node-exited', { text, data });
  if (!decision.restart) return 'exit';
  try {
    await delay(decision.delayMs, undefined, { signal: ctx.signal });
  } catch (error) {
    // Asked to stop during the wait: the caller sees the stop.
    if ((error as { name?: string }).name !== 'AbortError') throw error;
  }
  return 'again';
}
