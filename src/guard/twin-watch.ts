/**
 * The twin check over time (issue #32): the network's new blocks read as they come (./scan.ts), each
 * one compared with this home's signing state.
 * Why, and the rest of its rules: docs/design/double-sign.md#guardtwinwatchts.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { NetworkRpcError } from '../chain/index.js';
import type { ChainvisorError } from '../shared/errors/index.js';
import { isLocalReadFailure, keyInUseError, reportOf, type TwinContext } from './twin-report.js';
import type { ScanResult } from './twin-scan.js';

/** Readings while the node runs: every block, within these bounds. */
const minIntervalMs = 1000;
const maxIntervalMs = 10_000;
/** A clear finding while the node runs is reported (status, metrics) at most this often. */
const reportEveryMs = 30_000;
/** Readings in a row that fail before the RPC is reported as not answering (docs/double-sign.md). */
const failuresBeforeWarning = 3;
/** The wait of CHAINVISOR_TWIN_WAIT ends when the network's height stays put this long (or 5 block times). */
const stallMs = 30_000;

function intervalOf(ctx: TwinContext): number {
  return Math.min(maxIntervalMs, Math.max(minIntervalMs, Math.round(ctx.scan.blockMs ?? minIntervalMs)));
}

/** The signature seen above this home's last signed height, if any (the local state read after the network, and only when it matters). */
async function twinAbove(ctx: TwinContext, known: { local: number }): Promise<number | undefined> {
  const seen = ctx.scan.seenHeight;
  if (seen === undefined || seen <= known.local) return undefined;
  known.local = await ctx.localHeight();
  return seen > known.local ? seen : undefined;
}

/** CHAINVISOR_TWIN_WAIT's blocks after `start`, the newest height the check before the start read. */
export async function waitBlocks(ctx: TwinContext, start: number, signal: AbortSignal, unchecked: (reason: string) => void): Promise<void> {
  const { scan, config, logger } = ctx;
  const known = { local: await ctx.localHeight() };
  const target = start + config.twinWait;
  logger.info(
    { event: 'twin-wait', blocks: config.twinWait, rpc: scan.rpc, height: start },
    'CHAINVISOR_TWIN_WAIT: watching %d new blocks on the network before the first start',
    config.twinWait,
  );
  let height = start;
  let movedAt = Date.now();
  let failingSince: number | undefined;
  for (;;) {
    try {
      await sleep(intervalOf(ctx), undefined, { signal });
    } catch {
      return; // chainvisor stops
    }
    try {
      const result = await scan.poll(AbortSignal.any([signal, AbortSignal.timeout(config.twinTimeout)]));
      if (!result.complete) throw new NetworkRpcError(result.rpc, 'the new commits', result.failure ?? 'not every commit was given');
      failingSince = undefined;
      if (result.toHeight > height) movedAt = Date.now();
      height = Math.max(height, result.toHeight);
    } catch (error) {
      if (signal.aborted) return;
      if (!(error instanceof NetworkRpcError)) throw error;
      failingSince ??= Date.now();
      if (Date.now() - failingSince < config.twinTimeout) continue;
      return unchecked(`the network RPC stopped answering during CHAINVISOR_TWIN_WAIT (${error.message})`);
    }
    const seen = await twinAbove(ctx, known);
    const base = { rpc: scan.rpc, fromHeight: start + 1, toHeight: height, address: ctx.address, localHeight: known.local };
    if (seen !== undefined) {
      const found = reportOf('key-in-use', { ...base, seenHeight: seen });
      ctx.report('key-in-use', found, { during: 'wait' });
      throw keyInUseError(found, ctx.signing.stateFile, 'the node was not started');
    }
    if (height >= target) {
      ctx.report('twin-checked', reportOf('clear', base), { during: 'wait' });
      return;
    }
    if (Date.now() - movedAt >= Math.max(stallMs, 5 * (scan.blockMs ?? 0))) {
      logger.warn(
        { event: 'twin-wait', height, target },
        'CHAINVISOR_TWIN_WAIT: the network has made no new block for %d s (a halted chain may be waiting for this validator); starting the node after %d of %d blocks',
        Math.round((Date.now() - movedAt) / 1000),
        height - start,
        config.twinWait,
      );
      ctx.report('twin-checked', reportOf('clear', base), { during: 'wait' });
      return;
    }
  }
}

/** While the node runs; returns the reading under way, if any (a start waits for it: the scan is not shared). */
export function watchWhileRunning(
  ctx: TwinContext,
  options: { exited: Promise<unknown>; stop: AbortSignal; onKeyInUse: (error: ChainvisorError) => void; unchecked: (reason: string) => void },
): () => Promise<void> {
  const { scan, logger } = ctx;
  // Plain timers between readings; a reading has one deadline, CHAINVISOR_TWIN_TIMEOUT, for all of it:
  // the client's limits are per phase, and an RPC that trickles its answers would hold the watch.
  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  let reading: Promise<void> = Promise.resolve();
  const end = (): void => {
    ended = true;
    clearTimeout(timer);
    options.stop.removeEventListener('abort', end);
  };
  options.exited.then(end, end);
  options.stop.addEventListener('abort', end, { once: true });
  const known = { local: -1 };
  let failures = 0;
  let saidDown = false;
  let reportedAt = Date.now();

  const readOnce = async (): Promise<boolean> => {
    let result: ScanResult | undefined;
    try {
      result = await scan.poll(AbortSignal.timeout(ctx.config.twinTimeout));
      if (!result.complete) throw new NetworkRpcError(result.rpc, 'the new commits', result.failure ?? 'not every commit was given');
    } catch (error) {
      if (ended) return false;
      if (!(error instanceof NetworkRpcError)) throw error;
      failures += 1;
      if (failures >= failuresBeforeWarning && !saidDown) {
        saidDown = true;
        options.unchecked(`the network RPC ${scan.rpc} does not answer (${error.message})`);
      }
      // A commit the RPC did not give may hold a twin's signature: what was seen is still judged.
      if (result === undefined) return true;
    }
    if (ended) return false;
    const seen = await twinAbove(ctx, known).catch((error: unknown) => {
      if (!isLocalReadFailure(error)) throw error;
      logger.warn({ err: error }, `twin check: cannot read this validator's signing state: ${(error as Error).message}`);
      return undefined;
    });
    const base = { rpc: result.rpc, fromHeight: result.fromHeight, toHeight: result.toHeight, address: ctx.address, localHeight: known.local };
    if (seen !== undefined) {
      const found = reportOf('key-in-use', { ...base, seenHeight: seen });
      ctx.report('key-in-use', found, { during: 'running' });
      options.onKeyInUse(keyInUseError(found, ctx.signing.stateFile, 'the node was stopped'));
      return false;
    }
    if (!result.complete) return true;
    failures = 0;
    const back = saidDown;
    saidDown = false;
    if (back || Date.now() - reportedAt >= reportEveryMs) {
      reportedAt = Date.now();
      ctx.report('twin-checked', reportOf('clear', { ...base, ...(scan.seenHeight === undefined ? {} : { seenHeight: scan.seenHeight }) }), {
        during: 'running',
        ...(back ? { back: true } : {}),
      });
    }
    return true;
  };

  const schedule = (): void => {
    if (ended) return;
    timer = setTimeout(() => {
      reading = readOnce().then(
        (more) => {
          if (more) schedule();
        },
        (error: unknown) => {
          // Only ever a reason to warn: the watch must not take the supervisor down.
          logger.warn({ err: error }, `twin check: the watch while the node runs ended: ${(error as Error).message}`);
        },
      );
    }, intervalOf(ctx));
    timer.unref();
  };
  schedule();
  return () => reading;
}
