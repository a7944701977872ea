/**
 * The one launch point of the node: every start — `run`, a restart, the start after an upgrade, after a
 * manual upgrade, with a new halt height — comes through here: the binary checked, the guards (the
 * home check, the sign guard, the twin check), then the node record, the spawn and the watches. A
 * guard that refuses ends the run: the node is not started.
 * Why, and the rest of its rules: docs/design/upgrade.md#supervisornodelaunchts.
 */
import type { HomeCheck, NodeTracker, SignGuard, TwinCheck } from '../guard/index.js';
import { binaryPath, checkNodeBinary, type Current, type Layout, readCurrent } from '../home/layout/index.js';
import { ChainvisorError, ExitCode } from '../shared/errors/index.js';
import type { EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import { describeExit, type NodeProcess, startNode } from './node-process.js';

export interface LaunchContext {
  layout: Layout;
  logger: Logger;
  events: EventBus;
  tracker: NodeTracker | undefined;
  homeCheck: HomeCheck;
  signGuard: SignGuard;
  twinCheck: TwinCheck;
  /** Aborted when chainvisor is asked to stop: a guard that waits (CHAINVISOR_TWIN_WAIT) gives up. */
  signal: AbortSignal;
  /** A guard found the running node unsafe (its key signing elsewhere, its home elsewhere): the run loop stops it. */
  stopUnsafe(error: ChainvisorError): void;
  /** The node just spawned: from now on the one the stop signals and the detector look at. */
  started(launched: Launched): void;
}

export interface LaunchOptions {
  /** `current` as the upgrade switched it, right before this start (its binary checked by pre-upgrade); undefined for any other start. */
  switched: Current | undefined;
  /** The first start of this `run` (CHAINVISOR_TWIN_WAIT applies to it, unless it follows an upgrade). */
  first: boolean;
  /** The node's arguments for this start (a manual upgrade's --halt-height included). */
  args: readonly string[];
  /** The node's environment (node-process.ts nodeEnvironment). */
  env: NodeJS.ProcessEnv | undefined;
}

export interface Launched {
  node: NodeProcess;
  current: Current;
}

/** Starts the node, or returns undefined when chainvisor was asked to stop before it could. */
export async function launchNode(ctx: LaunchContext, options: LaunchOptions): Promise<Launched | undefined> {
  const { layout, logger, events, tracker } = ctx;
  const { switched } = options;
  const current = switched ?? (await readCurrent(layout));
  const binary = binaryPath(layout, current.dir);
  if (!switched && !(await checkNodeBinary(binary, { logger, when: 'starting the node', exitCode: ExitCode.config }))) {
    throw new ChainvisorError('CHAINVISOR_NO_BINARY', `no node binary at ${binary} (current -> ${current.dir})`, {
      hint:
        current.dir === 'genesis'
          ? "run 'chainvisor init <path-to-binary>' first"
          : `install it with 'chainvisor add-upgrade ${current.plan?.name ?? '<name>'} <path-to-binary> --force'`,
    });
  }
  try {
    // First: with the node's home elsewhere, the sign guard and the twin check would read the wrong files.
    await ctx.homeCheck.beforeStart(options.args);
    await ctx.signGuard.beforeStart(ctx.signal);
    await ctx.twinCheck.beforeStart({ first: options.first && switched === undefined, signal: ctx.signal });
  } catch (error) {
    if (ctx.signal.aborted) return undefined; // the stop ended a guard's reading (a genesis of gigabytes, the twin wait)
    throw error;
  }
  if (ctx.signal.aborted) return undefined;
  const args = options.args;
  await tracker?.beforeSpawn(binary);
  const node = startNode(binary, args, logger, options.env);
  tracker?.spawned(node);
  ctx.signGuard.watch(node.exited);
  ctx.twinCheck.watch(node.exited, (error) => ctx.stopUnsafe(error));
  ctx.homeCheck.watch(node, (error) => ctx.stopUnsafe(error));
  events.emit('node-started', { text: `node started: ${binary}`, data: { pid: node.pid, binary, args, current: current.dir } });
  void node.exited.then(
    (status) =>
      events.emit('node-stopped', { text: `node stopped (${describeExit(status)})`, data: { pid: node.pid, code: status.code, signal: status.signal } }),
    () => undefined,
  );
  ctx.started({ node, current });
  return { node, current };
}
