/**
 * Bounded concurrency: run `work` over `items` with at most `limit` at a time. A backup of 10,000 small
 * files is bound by the latency of each open/copy/close, not by the disk's bandwidth, so a dozen in
 * flight at once is several times faster than one after another (what `fs.cp` does). The first
 * failure (or an abort) stops new work; the ones in flight finish before the error is thrown, so the
 * caller can remove what was written without racing a worker still writing into it.
 */
export async function runPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      if (signal?.aborted) {
        failure ??= { error: signal.reason };
        return;
      }
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
}
