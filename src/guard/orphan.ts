/**
 * The node a killed chainvisor left running. SIGKILL gives chainvisor no chance to stop its child, and
 * a service manager that kills only the main process (systemd's KillMode=process) leaves the node up.
 * At the next start — after the home lock is taken, so no live chainvisor owns it — the node record
 * names it; if that process is still alive with the same start time (and, where /proc shows it, the
 * same CHAINVISOR_RUN_ID), it is stopped the way the supervisor stops a node (SIGTERM, the shutdown
 * grace, SIGKILL) and waited for before the new node starts: never two nodes of one home.
 * A record whose pid is gone, or now belongs to another process, is stale and ignored.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { ChainvisorError, isErrno } from '../shared/errors/index.js';
import type { Logger } from '../shared/log.js';
import { findProcessesByEnv, isProcessAlive, processStartToken, readProcessEnv } from '../shared/proc/index.js';
import type { HomePaths } from './home-paths.js';
import { type NodeRecord, nodeRecordPath, readNodeRecord, removeNodeRecord, runIdVariable } from './node-record.js';

export interface OrphanOptions {
  layout: HomePaths;
  logger: Logger;
  /** DAEMON_SHUTDOWN_GRACE in ms; 0 waits `defaultGraceMs` before SIGKILL (a clean stop matters more than speed here). */
  graceMs: number;
  /** How often to look whether the orphan is gone. */
  pollMs?: number;
}

/** Used when DAEMON_SHUTDOWN_GRACE is 0, as for a restart of the node. */
const defaultGraceMs = 30_000;
/** After SIGKILL the kernel ends a process at once; this bounds the wait for one stuck in the kernel (D state). */
const killWaitMs = 10_000;

/** Finds and stops the node an earlier, killed chainvisor left running. Returns the pids stopped. */
export async function stopOrphanNode(options: OrphanOptions): Promise<number[]> {
  const { layout, logger } = options;
  const record = await readNodeRecord(layout, logger);
  if (record === undefined) return [];
  const orphans = await findOrphans(record, layout, logger);
  for (const orphan of orphans) {
    logger.warn(
      { event: 'orphan-node', nodePid: orphan.pid, binary: record.binary, since: record.startedAt, supervisor: record.supervisorPid },
      'the node started by an earlier chainvisor (pid %d, killed without stopping it) is still running: stopping it before starting a new one — never two nodes of one home',
      orphan.pid,
    );
    await stopProcess(orphan, options);
    logger.warn({ event: 'orphan-node-stopped', nodePid: orphan.pid }, 'the orphan node (pid %d) has stopped', orphan.pid);
  }
  await removeNodeRecord(layout);
  return orphans.map((o) => o.pid);
}

interface Target {
  pid: number;
  /** Tells the process apart from a later one given the same pid. */
  token: string | undefined;
}

async function findOrphans(record: NodeRecord, layout: HomePaths, logger: Logger): Promise<Target[]> {
  if (record.pid === undefined) {
    // Killed between the spawn and the record of its pid: the run id in the environment finds it.
    const pids = await findProcessesByEnv(runIdVariable, record.runId);
    return Promise.all(pids.map(async (pid) => ({ pid, token: await processStartToken(pid) })));
  }
  const pid = record.pid;
  const token = (await isProcessAlive(pid)) ? await processStartToken(pid) : undefined;
  if (token === undefined) {
    logger.debug({ nodePid: pid }, 'node record: the node it names has exited');
    return [];
  }
  if (record.startToken !== undefined && token !== record.startToken) {
    logger.info({ nodePid: pid, recorded: record.startToken, now: token }, 'ignoring a stale node record: pid %d now belongs to another process', pid);
    return [];
  }
  const env = await readProcessEnv(pid);
  if (env !== undefined && env.get(runIdVariable) !== record.runId) {
    logger.info({ nodePid: pid }, 'ignoring a stale node record: pid %d is not the node it recorded (its %s differs)', pid, runIdVariable);
    return [];
  }
  if (record.startToken === undefined && env === undefined) {
    // Nothing but the pid to go on: neither kill a stranger nor start a second node beside the orphan.
    throw new ChainvisorError(
      'CHAINVISOR_ORPHAN_NODE',
      `the node record names pid ${pid}, which is running, but nothing confirms it is the node an earlier chainvisor started; not starting a second node beside it`,
      { hint: `if pid ${pid} is that node, stop it; if it is not, remove ${nodeRecordPath(layout)}; then start chainvisor again` },
    );
  }
  return [{ pid, token }];
}

async function stopProcess(target: Target, options: OrphanOptions): Promise<void> {
  const grace = options.graceMs > 0 ? options.graceMs : defaultGraceMs;
  const poll = options.pollMs ?? 50;
  signal(target, 'SIGTERM');
  if (await goneWithin(target, grace, poll)) return;
  options.logger.warn({ nodePid: target.pid, graceMs: grace }, 'orphan node still running after the grace period; sending SIGKILL');
  signal(target, 'SIGKILL');
  if (await goneWithin(target, killWaitMs, poll)) return;
  throw unstoppable(target, 'it is still running after SIGKILL');
}

function signal(target: Target, name: NodeJS.Signals): void {
  try {
    process.kill(target.pid, name);
  } catch (error) {
    if (isErrno(error, 'ESRCH')) return;
    if (isErrno(error, 'EPERM')) throw unstoppable(target, `this user may not signal it (${name})`);
    throw error;
  }
}

async function goneWithin(target: Target, ms: number, poll: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!(await sameProcessAlive(target))) return true;
    if (Date.now() >= deadline) return false;
    await sleep(poll);
  }
}

async function sameProcessAlive(target: Target): Promise<boolean> {
  if (!(await isProcessAlive(target.pid))) return false;
  return target.token === undefined || (await processStartToken(target.pid)) === target.token;
}

function unstoppable(target: Target, why: string): ChainvisorError {
  return new ChainvisorError(
    'CHAINVISOR_ORPHAN_NODE',
    `a node left running by an earlier chainvisor (pid ${target.pid}) could not be stopped: ${why}; not starting a second node beside it`,
    {
      hint: `stop pid ${target.pid} yourself (as its owner or root), then start chainvisor again`,
    },
  );
}
