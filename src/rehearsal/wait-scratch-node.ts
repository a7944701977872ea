/**
 * Waiting on the scratch node: the old binary's halt for the upgrade, then the new binary's blocks up to
 * a height; and the words for a node that stopped or stalled before it.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { readUpgradeInfo } from '../chain/index.js';
import { type Exit, rpcHeight, type ScratchNode } from './scratch-node.js';

/**
 * Until the old binary has halted for `upgrade`: it exits, or — as a real node does at an upgrade height,
 * CometBFT keeping the process up after the CONSENSUS FAILURE — it stays up with the plan written, and is
 * then stopped here, as chainvisor stops a live node that halts that way.
 */
export async function waitHalt(node: ScratchNode, halt: { file: string; upgrade: string }, deadline: number, signal: AbortSignal): Promise<'timeout' | Exit> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
  aborted.catch(() => undefined);
  const timer = sleep(Math.max(0, deadline - performance.now()), 'timeout' as const, { ref: false });
  let watching = true;
  const planWritten = (async () => {
    while (watching) {
      await sleep(100, undefined, { ref: false });
      const read = await readUpgradeInfo(halt.file).catch(() => undefined);
      if (watching && read?.status === 'valid' && read.plan.name === halt.upgrade) return node.stop();
    }
    return new Promise<never>(() => undefined);
  })();
  try {
    return await Promise.race([node.exited, timer, aborted, planWritten]);
  } finally {
    watching = false;
  }
}

export async function waitHeight(
  node: ScratchNode,
  port: number,
  height: number,
  deadline: number,
  signal: AbortSignal,
  seen: (h: number) => void,
): Promise<'reached' | 'timeout' | 'failed-up' | Exit> {
  for (;;) {
    signal.throwIfAborted();
    if (node.hasExited()) return node.exited;
    // A failure it printed: a Go panic exits at once; CometBFT keeps the process up after a CONSENSUS FAILURE.
    if (node.panicLine() !== undefined) return Promise.race([node.exited, sleep(2000, 'failed-up' as const, { ref: false })]);
    const h = await rpcHeight(port);
    if (h !== undefined) seen(h);
    if (h !== undefined && h >= height) return 'reached';
    if (performance.now() > deadline) return 'timeout';
    await sleep(100);
  }
}

export function describe(exit: Exit): string {
  return exit.signal === undefined ? `it exited with code ${exit.code}` : `it was killed by ${exit.signal}`;
}

export function stalled(node: ScratchNode, outcome: 'timeout' | 'failed-up' | Exit, height: number, timeoutMs: number): string {
  const panic = node.panicLine();
  if (outcome === 'timeout') return `the new binary did not reach height ${height} within ${timeoutMs / 1000} s`;
  if (outcome === 'failed-up') return `the new binary failed before height ${height} and stays up without making blocks: ${panic}`;
  return `the new binary stopped before height ${height}: ${describe(outcome)}${panic ? `: ${panic}` : ''}`;
}
