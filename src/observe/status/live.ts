/**
 * What only the running supervisor knows — the node's pid and state, the plan heard from the chain,
 * the chain's height, how the last upgrade went, backup durations, the transfer under way — kept up
 * to date from the event bus. Everything that is on disk (current, staged binaries, the batch file,
 * backup folders) is read from the home instead (./home.ts), so it is never stale.
 */
import { type BlockTime, createBlockClock } from '../../shared/eta.js';
import type { AfterUpgrade, EventBus, HomeMismatch, ProposalView, SupervisorEvent, TwinCheckReport } from '../../shared/events/index.js';

export type NodeState = 'starting' | 'running' | 'stopped' | 'upgrading' | 'exited' | 'unsupervised';

export interface PendingRef {
  name: string;
  height: number;
  /** `chain`: an upgrade plan on chain (upgrade-scheduled, -rescheduled); `halt-file`: data/upgrade-info.json. */
  source: 'chain' | 'halt-file';
}

export interface LastUpgrade {
  name: string;
  height: number;
  result: 'applied' | 'failed';
  /** Halt detected → new node started (until it starts: → switched); null when unknown. */
  durationSeconds: number | null;
  /** When it was applied or failed; null when unknown (read from the home, not seen by a run). */
  time: string | null;
  error?: string;
}

export interface BackupRecord {
  path: string;
  durationSeconds: number | null;
  mode: string | null;
  time: string;
}

export interface Activity {
  kind: 'download' | 'backup' | 'extract';
  what: string;
  bytes: number;
  total: number | null;
}

export interface LiveState {
  chainvisor: { pid: number; since: string; version: string; http: string | null };
  node: { pid: number | null; state: NodeState; since: string | null; restarts: number; lastExit: { code: number | null; signal: string | null } | null };
  pending: PendingRef | null;
  chainHeight: number | null;
  /** The chain's block time over the recent blocks (shared/eta.ts): what `pending.eta` counts with (issue #35). */
  blockTime?: BlockTime | null;
  lastUpgrade: LastUpgrade | null;
  /** Backups made by this run, newest first. */
  backups: BackupRecord[];
  activity: Activity | null;
  /** The network after the last upgrade (issue #26): from the switch until the next upgrade. */
  afterUpgrade: AfterUpgrade | null;
  /** What the follow found wrong in the node's RPC answers (a share above 100 %, …), while it lasts (issue #31). */
  rpcProblem?: string | null;
  /** The twin check's last finding (issue #32): clear, key-in-use, unchecked or off. */
  twinCheck: TwinCheckReport | null;
  /** The node lives outside DAEMON_HOME (issue #43): its home and how it was seen; null when it does not (or not yet seen). */
  homeMismatch?: HomeMismatch | null;
  /** The upgrade proposals in their voting period, as last read (issue #45); empty while none is, or governance reading is off. */
  proposals?: ProposalView[];
  updated: string;
}

export interface LiveTracker {
  state(): LiveState;
  /** Called after every change; `urgent` is false for progress and chain-height ticks. */
  onChange(listener: (urgent: boolean) => void): void;
  setHttp(address: string | null): void;
  close(): void;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function trackLive(options: { bus: EventBus; version: string; now?: () => number }): LiveTracker {
  const now = options.now ?? Date.now;
  const state: LiveState = {
    chainvisor: { pid: process.pid, since: iso(now()), version: options.version, http: null },
    node: { pid: null, state: 'starting', since: null, restarts: 0, lastExit: null },
    pending: null,
    chainHeight: null,
    blockTime: null,
    lastUpgrade: null,
    backups: [],
    activity: null,
    afterUpgrade: null,
    rpcProblem: null,
    twinCheck: null,
    homeMismatch: null,
    proposals: [],
    updated: iso(now()),
  };
  const listeners: ((urgent: boolean) => void)[] = [];
  let started = false;
  const clock = createBlockClock();
  /** When the halt of the last applied upgrade was detected, until the new node starts. */
  let detectedAt: number | undefined;

  const apply = (e: SupervisorEvent): boolean => {
    const data = e.data ?? {};
    switch (e.event) {
      case 'node-started':
        // A node that was down catches up fast: the heights it reads then are not the chain's pace.
        clock.reset();
        state.blockTime = null;
        if (started) state.node.restarts += 1;
        started = true;
        state.node = { ...state.node, pid: num(data.pid), state: 'running', since: iso(e.time) };
        if (detectedAt !== undefined && state.lastUpgrade?.result === 'applied') {
          state.lastUpgrade.durationSeconds = (e.time - detectedAt) / 1000;
        }
        detectedAt = undefined;
        return true;
      case 'node-stopped':
        state.node.lastExit = { code: num(data.code), signal: str(data.signal) };
        if (state.node.state === 'running' && (state.node.pid === null || state.node.pid === num(data.pid))) {
          state.node.state = 'stopped';
          state.node.since = iso(e.time);
        }
        return true;
      case 'node-exited':
        state.node = { ...state.node, state: 'exited', since: iso(e.time), lastExit: { code: num(data.code), signal: str(data.signal) } };
        return true;
      case 'upgrade-detected':
        clock.reset();
        state.blockTime = null;
        state.node = { ...state.node, state: 'upgrading', since: iso(e.time) };
        if (e.upgrade) state.pending = { ...e.upgrade, source: 'halt-file' };
        return true;
      case 'upgrade-applied': {
        const ms = num(data.ms);
        if (e.upgrade) state.lastUpgrade = { ...e.upgrade, result: 'applied', durationSeconds: ms === null ? null : ms / 1000, time: iso(e.time) };
        detectedAt = ms === null ? undefined : e.time - ms;
        if (state.pending && e.upgrade && state.pending.name === e.upgrade.name) state.pending = null;
        state.afterUpgrade = null;
        state.rpcProblem = null;
        return true;
      }
      case 'upgrade-confirmed': {
        // The first block past the switch is committed: the chain is at least there, before the next plan poll says so.
        const height = num(data.height);
        if (height !== null && height > (state.chainHeight ?? 0)) state.chainHeight = height;
        state.afterUpgrade = fieldsOf(data, afterUpgradeFields);
        state.rpcProblem = null;
        return true;
      }
      case 'consensus-round':
      case 'network-waiting':
      case 'validator-not-signing':
      case 'upgrade-stalled':
        state.afterUpgrade = fieldsOf(data, afterUpgradeFields);
        state.rpcProblem = str(data.rpcProblem);
        return true;
      case 'upgrade-failed':
        if (e.upgrade) state.lastUpgrade = { ...e.upgrade, result: 'failed', durationSeconds: null, time: iso(e.time), error: e.text };
        state.node = { ...state.node, state: 'stopped', since: iso(e.time) };
        return true;
      case 'upgrade-scheduled':
      case 'upgrade-rescheduled':
        if (e.upgrade && state.pending?.source !== 'halt-file') state.pending = { ...e.upgrade, source: 'chain' };
        return true;
      case 'upgrade-cancelled':
        if (state.pending?.source === 'chain' && (e.upgrade === undefined || e.upgrade.name === state.pending.name)) state.pending = null;
        return true;
      case 'binary-staged':
      case 'staging-failed':
      case 'checksum-disagreement':
        return true; // what is staged is read from disk; this only prompts a refresh
      case 'twin-checked':
      case 'key-in-use':
      case 'twin-unchecked':
        state.twinCheck = fieldsOf(data, twinCheckFields);
        return true;
      case 'home-mismatch':
        state.homeMismatch = fieldsOf(data, homeMismatchFields);
        return true;
      case 'proposals':
        state.proposals = Array.isArray(data.proposals) ? (data.proposals as ProposalView[]) : [];
        return true;
      case 'chain-height': {
        const height = num(data.height);
        if (height === null || height === state.chainHeight) return false;
        clock.observe(height, e.time);
        state.blockTime = clock.blockTime();
        state.chainHeight = height;
        return true;
      }
      case 'backup-started':
        state.activity = { kind: 'backup', what: str(data.path) ?? '', bytes: 0, total: null };
        return true;
      case 'backup-done': {
        const ms = num(data.ms);
        const path = str(data.path);
        if (path !== null) {
          state.backups = [{ path, durationSeconds: ms === null ? null : ms / 1000, mode: str(data.mode), time: iso(e.time) }, ...state.backups].slice(0, 20);
        }
        if (state.activity?.kind === 'backup') state.activity = null;
        return true;
      }
      case 'download-progress':
      case 'backup-progress':
      case 'extract-progress':
        state.activity = data.done
          ? null
          : {
              kind: e.event === 'download-progress' ? 'download' : e.event === 'backup-progress' ? 'backup' : 'extract',
              what: str(data.what) ?? '',
              bytes: num(data.bytes) ?? 0,
              total: num(data.total),
            };
        return true;
      default:
        return false;
    }
  };

  const off = options.bus.on((event) => {
    if (!apply(event)) return;
    state.updated = iso(now());
    const urgent = !['download-progress', 'backup-progress', 'extract-progress', 'chain-height', 'consensus-round', 'twin-checked'].includes(event.event);
    for (const listener of listeners) listener(urgent);
  });
  return {
    state: () => state,
    onChange: (listener) => void listeners.push(listener),
    setHttp(address) {
      state.chainvisor.http = address;
    },
    close: off,
  };
}

/** The follow's fields only (the event's data also carries e.g. `noticedMs`). */
const afterUpgradeFields: FieldList<AfterUpgrade> = {
  upgrade: true,
  state: true,
  height: true,
  round: true,
  prevoteRatio: true,
  precommitRatio: true,
  ownPrevote: true,
  signed: true,
  seconds: true,
  since: true,
};

/** The report's fields only (the event's data also carries `during`, `why` …). */
const twinCheckFields: FieldList<TwinCheckReport> = {
  state: true,
  checkedAt: true,
  rpc: true,
  fromHeight: true,
  toHeight: true,
  seenHeight: true,
  localHeight: true,
  address: true,
  reason: true,
};

const homeMismatchFields: FieldList<HomeMismatch> = { nodeHome: true, daemonHome: true, seen: true, file: true, refused: true };

/** Every field of `T`, so that the compiler names one a list forgets. */
type FieldList<T> = { readonly [K in keyof T]-?: true };

/** The fields of `T` an event's data holds, in the list's order; one the data lacks stays absent. */
function fieldsOf<T>(data: Record<string, unknown>, fields: FieldList<T>): T {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) if (data[key] !== undefined) picked[key] = data[key];
  return picked as T;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
