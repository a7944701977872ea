/**
 * What the network says about this validator's key (issue #32): the commits of the newest blocks on
 * the network RPCs (CHAINVISOR_NETWORK_RPC, watcher/chain network.ts), read once per height and
 * remembered as the highest height at which this validator's address signed. That memory is what
 * makes a check cheap after the first: a start after an upgrade, while the network is halted at the
 * upgrade height, reads one /status and no commit at all; a poll while the node runs reads the new
 * commits only. A signature seen once stays evidence, whichever later reading it was seen in.
 *
 * At a start every RPC is asked its /status at once and the highest answering one is read; while the
 * node runs only the current one is, the next taking over when it fails. An RPC of another chain id
 * is a configuration mistake (78) at a start, a warning while the node runs.
 */
import { ChainvisorError } from '../../shared/errors/index.js';
import type { NetworkReader, NetworkStatus } from '../../watcher/chain/index.js';
import { NetworkRpcError } from '../../watcher/chain/index.js';

export interface ScanOptions {
  readers: readonly NetworkReader[];
  /** This validator's address, upper-case hex. */
  address: string;
  /** The chain id of this home's genesis. */
  chainId: string;
  /** CHAINVISOR_TWIN_BLOCKS: the newest this many commits are read. */
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

/** Commits read at once from one RPC. */
const concurrency = 8;

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

  /** The network's block time, once two readings of /status a few heights apart told it. */
  get blockMs(): number | undefined {
    return this.timing?.blockMs;
  }

  /**
   * Reads the commits of the newest blocks not read yet. `start`: every RPC is asked (another chain id
   * throws CHAINVISOR_NETWORK_RPC_OTHER_CHAIN); otherwise the current one. Throws NetworkRpcError when no
   * RPC answers /status.
   */
  async read(signal: AbortSignal, start: boolean): Promise<ScanResult> {
    const answering = await this.statuses(signal, start);
    const [first] = answering;
    if (first === undefined) throw new NetworkRpcError(this.rpc, 'its status', 'no network RPC answered');
    this.current = first.index;
    this.learnTiming(first.status);
    const to = first.status.latestHeight;
    const from = Math.max(1, to - this.options.blocks + 1, this.readThrough + 1);
    let pending = range(from, to);
    let failure: string | undefined;
    for (const { index } of answering) {
      if (pending.length === 0) break;
      this.current = index;
      ({ pending, failure } = await this.readCommits(this.options.readers[index] as NetworkReader, pending, signal));
    }
    if (pending.length === 0) this.readThrough = Math.max(this.readThrough, to);
    else if (failure === undefined) failure = 'the RPC did not answer every commit';
    return { rpc: this.rpc, fromHeight: from, toHeight: to, complete: pending.length === 0, ...(failure === undefined ? {} : { failure }) };
  }

  /** Whether this validator is in the set at the newest height the last reading saw (once it is, it is not asked again). */
  async inValidatorSet(height: number, signal: AbortSignal): Promise<boolean> {
    if (this.member) return true;
    this.member = await (this.options.readers[this.current] as NetworkReader).inValidatorSet(this.options.address, height, signal);
    return this.member;
  }

  /** The readers that answered /status, highest first (the current one alone while the node runs). */
  private async statuses(signal: AbortSignal, start: boolean): Promise<{ index: number; status: NetworkStatus }[]> {
    const { readers, chainId } = this.options;
    const asked = start ? readers.map((_, i) => i) : [this.current];
    const settled = await Promise.allSettled(asked.map((i) => (readers[i] as NetworkReader).status(signal)));
    const answering: { index: number; status: NetworkStatus }[] = [];
    const failures: string[] = [];
    settled.forEach((outcome, k) => {
      const index = asked[k] as number;
      const reader = readers[index] as NetworkReader;
      if (outcome.status === 'rejected') {
        failures.push(outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason));
        return;
      }
      // A home without a genesis file ('unknown') cannot start a node anyway: nothing to compare.
      if (outcome.value.chainId !== chainId && chainId !== 'unknown') {
        const message = `the network RPC ${reader.shown} serves chain ${JSON.stringify(outcome.value.chainId)}, not this home's ${JSON.stringify(chainId)} (its genesis chain_id): its commits say nothing about this validator`;
        if (start) throw new ChainvisorError('CHAINVISOR_NETWORK_RPC_OTHER_CHAIN', message);
        failures.push(message);
        return;
      }
      answering.push({ index, status: outcome.value });
    });
    // While the node runs, the next RPC takes over from one that fails, at the next reading.
    if (!start && answering.length === 0) this.current = (this.current + 1) % readers.length;
    if (answering.length === 0) throw new NetworkRpcError(this.rpc, 'its status', failures.join('; '));
    return answering.sort((a, b) => b.status.latestHeight - a.status.latestHeight);
  }

  /** Reads `heights` on `reader`, a few at a time; returns those left unread and why. */
  private async readCommits(reader: NetworkReader, heights: number[], signal: AbortSignal): Promise<{ pending: number[]; failure?: string }> {
    const { address } = this.options;
    const left = new Set(heights);
    let failure: string | undefined;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < heights.length && failure === undefined && !signal.aborted) {
        const height = heights[next++] as number;
        try {
          const commit = await reader.commit(height, signal);
          if (commit.signers.has(address)) this.seenHeight = Math.max(this.seenHeight ?? 0, height);
          left.delete(height);
        } catch (error) {
          if (!(error instanceof NetworkRpcError)) throw error;
          // A node that keeps fewer blocks (pruning) cannot show the older ones: nothing to see there.
          if (error.lowestHeight !== undefined && height < error.lowestHeight) left.delete(height);
          else failure = error.message;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, heights.length) }, worker));
    if (failure === undefined && signal.aborted) failure = 'no answer in time';
    return { pending: [...left].sort((a, b) => a - b), ...(failure === undefined ? {} : { failure }) };
  }

  /** The block time from two readings of /status (the network's own clock, not when chainvisor asked). */
  private learnTiming(status: NetworkStatus): void {
    if (Number.isNaN(status.latestTime)) return;
    const last = this.timing;
    if (last !== undefined && status.latestHeight > last.height) {
      const blockMs = (status.latestTime - last.time) / (status.latestHeight - last.height);
      this.timing = { height: status.latestHeight, time: status.latestTime, ...(blockMs > 0 ? { blockMs } : {}) };
    } else if (last === undefined) this.timing = { height: status.latestHeight, time: status.latestTime };
  }
}

function range(from: number, to: number): number[] {
  return to < from ? [] : Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
