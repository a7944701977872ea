/**
 * The status document: `GET /status` and `chainvisor status --output json` return exactly this, built
 * by the one function below from the home (always read fresh) and, when `run` is active, its live
 * state. Field names are a public interface (scripts read them): add, never rename.
 */
import { type Eta, etaOf, etaProblem } from '../../shared/eta.js';
import type { AfterUpgrade, HomeMismatch, ProposalView, TwinCheckReport } from '../../shared/events/index.js';
import type { HomeFacts, HomeOptions } from './home.js';
import { readHome, upgradeBinaryPresent } from './home.js';
import type { Activity, LastUpgrade, LiveState, NodeState } from './live.js';

export interface StatusDocument {
  version: string;
  time: string;
  home: string;
  chainvisor: { running: boolean; pid: number | null; since: string | null; http: string | null };
  current: { name: string; dir: string; binary: string; height: number | null };
  node: {
    pid: number | null;
    state: NodeState;
    since: string | null;
    restarts: number;
    lastExit: { code: number | null; signal: string | null } | null;
  };
  pending: {
    name: string;
    height: number;
    source: 'chain' | 'halt-file';
    blocksRemaining: number | null;
    binaryPresent: boolean;
    /** When the height is expected, from the block time over the recent blocks (issue #35); null while unknown. */
    eta: Eta | null;
    /** Only when there is a block time and yet no estimate: why (a height too far ahead to be a date). */
    etaProblem?: string;
  } | null;
  chain: { height: number | null };
  /** Upgrade proposals in their voting period (issue #45, docs/governance.md), while `run` reads them; `eta` as `pending.eta`. */
  proposals: (ProposalView & { eta: Eta | null })[];
  staged: HomeFacts['staged'];
  queued: HomeFacts['queued'];
  lastUpgrade: LastUpgrade | null;
  backups: { name: string; path: string; time: string | null; durationSeconds: number | null; mode: string | null }[];
  activity: Activity | null;
  /** The network after the last upgrade (issue #26, docs/monitoring.md): waiting, confirmed, not-signing or stalled; kept until the next upgrade. */
  afterUpgrade: AfterUpgrade | null;
  /** The twin check's last finding (issue #32, docs/double-sign.md): clear, key-in-use, unchecked or off; kept after `run` exits. */
  twinCheck: TwinCheckReport | null;
  /** The node lives outside DAEMON_HOME (issue #43, docs/cosmovisor.md#the-nodes-home): its home, DAEMON_HOME, how it was seen (`flag`, `open-files`); null otherwise; kept after `run` exits. */
  homeMismatch: HomeMismatch | null;
  /** The last rehearsal of each upgrade, newest first (`chainvisor rehearse`, docs/rehearsal.md). */
  rehearsals: HomeFacts['rehearsals'];
  /** The newest of them, or null. */
  lastRehearsal: HomeFacts['rehearsals'][number] | null;
  /** The last `chainvisor restore`: the backup, where the replaced data went, the signing state kept. */
  lastRestore: HomeFacts['lastRestore'];
  health: { ok: boolean; reason: string | null };
  problems: string[];
}

export interface BuildOptions extends HomeOptions {
  version: string;
  /** The running supervisor's state; undefined when `run` is not active. */
  live: LiveState | undefined;
  /** Kept from a previous run's status file: the last upgrade is history, still true after a restart. */
  history?:
    | {
        lastUpgrade: LastUpgrade | null;
        backups: LiveState['backups'];
        afterUpgrade?: AfterUpgrade | null;
        twinCheck?: TwinCheckReport | null;
        homeMismatch?: HomeMismatch | null;
      }
    | undefined;
}

export async function buildStatus(options: BuildOptions): Promise<StatusDocument> {
  const home = await readHome(options);
  const live = options.live;
  const pendingRef = live?.pending ?? (home.haltPlan ? { ...home.haltPlan, source: 'halt-file' as const } : null);
  const chainHeight = live?.chainHeight ?? null;
  const blockTime = chainHeight === null ? null : (live?.blockTime ?? null);
  const problem = pendingRef ? etaProblem(pendingRef.height, blockTime) : null;
  const pending = pendingRef
    ? {
        ...pendingRef,
        blocksRemaining: chainHeight === null ? null : Math.max(0, pendingRef.height - chainHeight),
        binaryPresent: await upgradeBinaryPresent(options.layout, pendingRef.name, options.recase),
        eta: etaOf(pendingRef.height, blockTime),
        ...(problem === null ? {} : { etaProblem: problem }),
      }
    : null;
  const known = live?.backups ?? options.history?.backups ?? [];
  const backups = home.backups.map((b) => {
    const record = known.find((k) => k.path === b.path);
    return { ...b, durationSeconds: record?.durationSeconds ?? null, mode: record?.mode ?? null };
  });
  const node: StatusDocument['node'] = live ? { ...live.node } : { pid: null, state: 'unsupervised', since: null, restarts: 0, lastExit: null };
  return {
    version: options.version,
    time: new Date().toISOString(),
    home: options.layout.home,
    chainvisor: live
      ? { running: true, pid: live.chainvisor.pid, since: live.chainvisor.since, http: live.chainvisor.http }
      : { running: false, pid: null, since: null, http: null },
    current: home.current,
    node,
    pending,
    chain: { height: chainHeight },
    proposals: (live?.proposals ?? []).map((p) => ({ ...p, eta: etaOf(Number(p.height), blockTime) })),
    staged: home.staged,
    queued: home.queued,
    lastUpgrade: live?.lastUpgrade ?? options.history?.lastUpgrade ?? lastFromHome(home),
    backups,
    activity: live?.activity ?? null,
    afterUpgrade: live?.afterUpgrade ?? options.history?.afterUpgrade ?? null,
    twinCheck: live?.twinCheck ?? options.history?.twinCheck ?? null,
    homeMismatch: live?.homeMismatch ?? options.history?.homeMismatch ?? null,
    rehearsals: home.rehearsals,
    lastRehearsal: home.rehearsals[0] ?? null,
    lastRestore: home.lastRestore,
    health: health(live, home),
    // Said while it lasts: the follow's reading of the node's RPC is wrong (issue #31).
    problems: live?.rpcProblem ? [...home.problems, `after upgrade: the node's RPC answers wrongly: ${live.rpcProblem}`] : home.problems,
  };
}

/** Without any record, the plan beside the current binary tells which upgrade was applied last. */
function lastFromHome(home: HomeFacts): LastUpgrade | null {
  if (home.current.height === null) return null;
  return { name: home.current.name, height: home.current.height, result: 'applied', durationSeconds: null, time: null };
}

function health(live: LiveState | undefined, home: HomeFacts): StatusDocument['health'] {
  if (!live) return { ok: false, reason: 'chainvisor run is not active for this home' };
  if (live.twinCheck?.state === 'key-in-use')
    return { ok: false, reason: `this validator's key signs on another machine (height ${live.twinCheck.seenHeight ?? '?'}); the node is stopped` };
  const node = live.node;
  if (node.state === 'running') {
    if (home.current.dir === 'unknown') return { ok: false, reason: home.problems[0] ?? 'current is unreadable' };
    return { ok: true, reason: null };
  }
  if (node.state === 'upgrading') return { ok: false, reason: `the node is stopped for upgrade "${live.pending?.name ?? live.lastUpgrade?.name ?? '?'}"` };
  if (node.state === 'starting') return { ok: false, reason: 'the node has not started yet' };
  if (live.lastUpgrade?.result === 'failed' && node.state === 'stopped')
    return { ok: false, reason: `upgrade "${live.lastUpgrade.name}" failed: ${live.lastUpgrade.error ?? ''}` };
  return { ok: false, reason: `the node is ${node.state}` };
}
