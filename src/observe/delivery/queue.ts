/**
 * The delivery queue of one webhook receiver or alert channel, and the flush at exit both share. A
 * queue keeps at most `maxQueued` items (when full, the oldest waiting item is dropped, never the one
 * being sent) and sends them one at a time, in order, off the emitter's turn: the bus listener only
 * appends, so formatting and sending never run on the path of a switch.
 */
import type { HttpClient } from '../../shared/net/index.js';

export interface DeliveryQueue<T> {
  push(item: T): void;
  /** Resolves once nothing is queued or being sent. */
  idle(): Promise<void>;
  pending(): number;
}

export interface DeliveryQueueOptions<T> {
  maxQueued: number;
  /** Aborted at close: nothing more is taken or sent. */
  signal: AbortSignal;
  /** Sends one item, retries included; a throw drops what is queued (`onFailed`). */
  send(item: T): Promise<void>;
  /** The queue was full: `dropped` left it for `item`. */
  onDropped(dropped: T): void;
  onFailed(error: unknown): void;
}

export function createDeliveryQueue<T>(options: DeliveryQueueOptions<T>): DeliveryQueue<T> {
  const { signal } = options;
  const items: T[] = [];
  let running = false;
  let waiters: (() => void)[] = [];

  async function drain(): Promise<void> {
    try {
      await new Promise((resolve) => setImmediate(resolve));
      while (items.length > 0 && !signal.aborted) {
        await options.send(items[0] as T);
        items.shift();
      }
    } catch (error) {
      options.onFailed(error);
      items.length = 0;
    } finally {
      running = false;
      const done = waiters;
      waiters = [];
      for (const resolve of done) resolve();
    }
  }

  return {
    push(item) {
      if (signal.aborted) return;
      if (items.length >= options.maxQueued) {
        const [dropped] = items.splice(1, 1);
        if (dropped !== undefined) options.onDropped(dropped);
      }
      items.push(item);
      if (!running) {
        running = true;
        void drain();
      }
    },
    idle() {
      if (!running && items.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    pending: () => items.length,
  };
}

/**
 * At exit: waits up to `flushMs` for every queue to empty, then aborts what is still being sent and
 * closes the client; `undelivered` is told of each queue that still held items, and how many.
 */
export async function flushQueues<Q extends DeliveryQueue<unknown>>(
  queues: readonly Q[],
  flushMs: number,
  stop: AbortController,
  client: HttpClient,
  undelivered: (queue: Q, count: number) => void,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, flushMs);
  });
  await Promise.race([Promise.all(queues.map((queue) => queue.idle())), deadline]);
  clearTimeout(timer);
  stop.abort();
  await client.close();
  for (const queue of queues) {
    const count = queue.pending();
    if (count > 0) undelivered(queue, count);
  }
}
