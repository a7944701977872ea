/**
 * Where a node that has just exited had got to. chainvisor samples the height every poll; a node with
 * fast blocks may commit several between two samples and exit before the next one. The height at the
 * exit is estimated from the first and last samples of that run (the observed block rate), so an exit
 * right after the halt height is told apart from one long before it (somebody stopped the node).
 */

export interface HeightSample {
  height: number;
  /** When it was read (ms since the epoch). */
  at: number;
}

/** The height the node had probably reached at `now`, given its first and last samples. */
export function reachedHeight(first: HeightSample | undefined, last: HeightSample, now: number): number {
  if (!first || last.height <= first.height) return last.height;
  const perBlock = Math.max((last.at - first.at) / (last.height - first.height), 1);
  return last.height + Math.floor(Math.max(now - last.at, 0) / perBlock);
}
