/**
 * What the network says about this validator's key (issue #32): the commits of the newest blocks on
 * the network RPCs (CHAINVISOR_NETWORK_RPC, src/chain/network.ts), each height read once, and the
 * highest height at which this validator's address signed remembered.
 * Why, and the rest of its rules: docs/design/double-sign.md#guardtwinscants.
 */
import type { NetworkCommit, NetworkReader, NetworkStatus } from '../chain/index.js';
import { NetworkRpcError } from '../chain/index.js';
import { ChainvisorError } from '../shared/errors/index.js';

export interface ScanOptions {
  readers: readonly NetworkReader[];
  /** This validator's address, upper-case hex. */
  address: string;
  /** The chain id of this home's genesis ('unknown' when it has none: nothing to compare). */
  chainId: string;
  /** CHAINVISOR_TWIN_BLOCKS: at most this many of the newest commits are read. */
  blocks: number;
}

/** One reading of the network. */
export interface ScanResult {
  /** The RPC read (redacted). */
  rpc: string;
  /** The heights whose commits this reading covers, both included (from > to when nothing was new). */
  fromHeight: number;
  toHeight: number;
  /** Every height of the range was read (a height the RPC pruned counts as read). */
  complete: boolean;
  /** Why not, when not. */
  failure?: string;
}

/**
 * Once one RPC has given its status, the others have as long again as it took, and at least this:
 * a slow or trickling RPC does not spend the start's whole deadline (issue #44).
 */
const minGraceMs = 250;

/**
 * Commits asked of one network RPC at once: a few round trips overlap (50 blocks from an RPC 100 ms away
 * take about 1.7 s, within the 3 s default of CHAINVISOR_TWIN_TIMEOUT), while at most this many answers,
 * each at most 8 MiB and 200,000 values, are in memory (issue #44: `run` under 250 MB whatever they hold).
 */
const commitsAtOnce = 3;

export class TwinScan {
  /** The highest height at which this validator's signature was seen on the network, if ever. */
  seenHeight: number | undefined;
  /** Every commit up to this height has been read. */
  private readThrough = 0;
  private current = 0;
  private member = false;
  private timing: { height: number; time: number; blockMs?: number } | undefined;
  private readonly options: ScanOptions;

  constructor(options: ScanOptions) {
    this.options = options;
  }

  /** The chain id the RPCs must serve. */
  get chainId(): string {
    return this.options.chainId;
  }

  /** The RPC read last (redacted). */
  get rpc(): string {
    return (this.options.readers[this.current] as NetworkReader).shown;
  }

  /** The network's block time, once two readings a few heights apart told it (by the blocks' own times). */
  get blockMs(): number | undefined {
    return this.timing?.blockMs;
  }

  /**
   * Before a start: the commits of the newest blocks not read yet. Every RPC is asked; another chain id
   * throws CHAINVISOR_NETWORK_RPC_OTHER_CHAIN; none answering throws NetworkRpcError.
   */
  async read(signal: AbortSignal): Promise<ScanResult> {
    const { answering, failures } = await this.statuses(signal);
    answering.sort((a, b) => b.status.latestHeight - a.status.latestHeight);
    const [first] = answering;
    if (first === undefined) throw new NetworkRpcError(this.rpc, 'its status', failures.join('; '));
    this.learnTiming(first.status.latestHeight, first.status.latestTime);
    return this.readRange(
      first.status.latestHeight,
      answering.map((a) => a.index),
      signal,
    );
  }

  /**
   * While the node runs: the current RPC's status, then the commits of the heights since the last
   * reading, up to its latest. Throws NetworkRpcError, and the next RPC takes over at the next reading
   * from one that failed. `signal`: the reading's deadline (CHAINVISOR_TWIN_TIMEOUT).
   */
  async poll(signal?: AbortSignal): Promise<ScanResult> {
    const index = this.current;
    const reader = this.options.readers[index] as NetworkReader;
    try {
      const status = await reader.status(signal);
      if (!this.sameChain(status.chainId)) throw new NetworkRpcError(reader.shown, 'its status', this.otherChain(index, status.chainId));
      this.learnTiming(status.latestHeight, status.latestTime);
      const newest = status.latestHeight;
      if (newest <= this.readThrough) return { rpc: reader.shown, fromHeight: newest + 1, toHeight: newest, complete: true };
      const result = await this.readRange(newest, [index], signal);
      if (!result.complete) this.current = (index + 1) % this.options.readers.length;
      return result;
    } catch (error) {
      if (error instanceof NetworkRpcError) this.current = (index + 1) % this.options.readers.length;
      throw error;
    }
  }

  /** Whether this validator is in the set at `height` (once it is, it is not asked again). */
  async inValidatorSet(height: number, signal: AbortSignal): Promise<boolean> {
    if (this.member) return true;
    this.member = await (this.options.readers[this.current] as NetworkReader).inValidatorSet(this.options.address, height, signal);
    return this.member;
  }

  private sameChain(chainId: string): boolean {
    return chainId === this.options.chainId || this.options.chainId === 'unknown';
  }

  private otherChain(index: number, chainId: string): string {
    const shown = (this.options.readers[index] as NetworkReader).shown;
    return `the network RPC ${shown} serves chain ${JSON.stringify(chainId)}, not this home's ${JSON.stringify(this.options.chainId)} (its genesis chain_id): its commits say nothing about this validator`;
  }

  /** Every RPC's status; once one answered, the others have as long again (at least minGraceMs). */
  private async statuses(signal: AbortSignal): Promise<{ answering: { index: number; status: NetworkStatus }[]; failures: string[] }> {
    const started = performance.now();
    const late = new AbortController();
    let grace: NodeJS.Timeout | undefined;
    const asked = AbortSignal.any([signal, late.signal]);
    const settled = await Promise.allSettled(
      this.options.readers.map(async (reader) => {
        const status = await reader.status(asked);
        grace ??= setTimeout(() => late.abort(), Math.max(minGraceMs, performance.now() - started));
        return status;
      }),
    );
    clearTimeout(grace);
    const answering: { index: number; status: NetworkStatus }[] = [];
    const failures: string[] = [];
    settled.forEach((outcome, index) => {
      if (outcome.status === 'rejected') failures.push(outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason));
      else if (!this.sameChain(outcome.value.chainId))
        throw new ChainvisorError('CHAINVISOR_NETWORK_RPC_OTHER_CHAIN', this.otherChain(index, outcome.value.chainId));
      else answering.push({ index, status: outcome.value });
    });
    return { answering, failures };
  }

  /** Reads the commits from after what was read (at most the newest `blocks`) up to `to`, on `order`'s RPCs in turn. */
  private async readRange(to: number, order: number[], signal: AbortSignal | undefined): Promise<ScanResult> {
    const from = Math.max(1, to - this.options.blocks + 1, this.readThrough + 1);
    let pending = to < from ? [] : Array.from({ length: to - from + 1 }, (_, i) => from + i);
    let failure: string | undefined;
    for (const index of order) {
      if (pending.length === 0) break;
      this.current = index;
      ({ pending, failure } = await this.readCommits(this.options.readers[index] as NetworkReader, pending, signal));
    }
    if (pending.length === 0) this.readThrough = Math.max(this.readThrough, to);
    else failure ??= 'the RPC did not give every commit';
    return { rpc: this.rpc, fromHeight: from, toHeight: to, complete: pending.length === 0, ...(failure === undefined ? {} : { failure }) };
  }

  /**
   * Reads `heights` on `reader`, `commitsAtOnce` at a time (at most that many answers of the network in
   * memory); returns those left unread and why. A commit of another chain is a failed reading, not a twin.
   */
  private async readCommits(reader: NetworkReader, heights: number[], signal: AbortSignal | undefined): Promise<{ pending: number[]; failure?: string }> {
    const left = new Set(heights);
    let failure: string | undefined;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < heights.length && failure === undefined && signal?.aborted !== true) {
        const height = heights[next++] as number;
        try {
          const commit = await reader.commit(height, signal);
          if (!this.sameChain(commit.chainId))
            throw new NetworkRpcError(
              reader.shown,
              `the commit of block ${height}`,
              `its header names chain ${JSON.stringify(commit.chainId)}, not this home's ${JSON.stringify(this.chainId)}`,
            );
          this.note(commit);
          left.delete(height);
        } catch (error) {
          if (!(error instanceof NetworkRpcError)) throw error;
          // A node that keeps fewer blocks (pruning) cannot show the older ones: nothing to see there.
          if (error.lowestHeight !== undefined && height < error.lowestHeight) left.delete(height);
          else failure ??= error.message;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(commitsAtOnce, heights.length) }, worker));
    if (failure === undefined && signal?.aborted === true) failure = 'no answer in time';
    return { pending: [...left].sort((a, b) => a - b), ...(failure === undefined ? {} : { failure }) };
  }

  private note(commit: NetworkCommit): void {
    if (commit.signers.has(this.options.address)) this.seenHeight = Math.max(this.seenHeight ?? 0, commit.height);
  }

  /** The block time from two readings at different heights, by the blocks' own clock (not when chainvisor asked). */
  private learnTiming(height: number, time: number): void {
    if (Number.isNaN(time)) return;
    const last = this.timing;
    if (last === undefined || height > last.height) {
      const blockMs = last === undefined ? undefined : (time - last.time) / (height - last.height);
      this.timing = { height, time, ...(blockMs !== undefined && blockMs > 0 ? { blockMs } : last?.blockMs === undefined ? {} : { blockMs: last.blockMs }) };
    }
  }
}
