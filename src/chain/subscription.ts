/**
 * The node's new blocks as they are committed (issue #35): CometBFT's JSON-RPC `subscribe` with the
 * query `tm.event='NewBlock'` on the node's `/websocket`, open only while the follow after a switch
 * waits for its first block. A message is only a wake-up: nothing in it is trusted or even parsed.
 * Why, and the rest of its rules: docs/design/chain.md#chainsubscriptionts.
 */
import type { Agent, WebSocket } from 'undici';

import { nodeConnect, nodeDialling, subscribeRequest } from './json-rpc.js';

export interface SubscriptionOptions {
  /** The node's CometBFT RPC address (`tcp://host:port`, `host:port`, `unix:///path`). */
  address: string;
  /** A NewBlock (or anything else the node sends on the subscription) arrived. */
  onBlock: () => void;
  /** The websocket closed or could not open; `reason` for the log. */
  onEnd: (reason: string) => void;
  /** Deadline of the opening handshake; default 5 s. */
  timeoutMs?: number;
}

export interface BlockSubscription {
  close(): void;
}

/** A NewBlock of a full block (21 MiB of transactions, base64) is larger: the connection closes, the poll sees it. */
const maxMessageBytes = 8 * 1024 * 1024;

/**
 * How long a closing websocket waits for the node's close frame before its connection is destroyed: a
 * server that never answers (or floods, or pings) must not keep chainvisor alive after it decided to exit.
 */
const closeDeadlineMs = 1000;

export const newBlockQuery = "tm.event='NewBlock'";

/** Undefined when the address cannot be dialled (the follow polls). */
export function subscribeNewBlocks(options: SubscriptionOptions): BlockSubscription | undefined {
  const dialling = nodeDialling(options.address, 'ws');
  if (dialling === undefined) return undefined;
  const { endpoint } = dialling;
  const url = `${dialling.origin}/websocket`;
  const timeoutMs = options.timeoutMs ?? 5000;
  let closed = false;
  let ws: WebSocket | undefined;
  let agent: Agent | undefined;
  let timer: NodeJS.Timeout | undefined;
  // The websocket's connection leaves the agent's pool once upgraded: kept here, to be destroyed.
  const sockets = new Set<{ destroy(): void }>();
  /** Closes what is open; false when it was closed already. */
  const shut = (): boolean => {
    if (closed) return false;
    closed = true;
    clearTimeout(timer);
    try {
      ws?.close();
    } catch {
      // Closing a socket that never opened: nothing to close.
    }
    void agent?.close().catch(() => undefined);
    if (sockets.size > 0) setTimeout(() => sockets.forEach((socket) => socket.destroy()), closeDeadlineMs).unref();
    return true;
  };
  const end = (reason: string): void => {
    if (shut()) options.onEnd(reason);
  };
  // Loaded at the first follow only: `run` at rest never holds the websocket client.
  void import('undici').then(
    (undici) => {
      if (closed) return;
      const connect = undici.buildConnector(nodeConnect(endpoint, timeoutMs));
      agent = new undici.Agent({
        connect: (options, done) =>
          connect(options, (error, socket) => {
            if (socket) sockets.add(socket);
            (done as (error: Error | null, socket: unknown) => void)(error, socket);
          }),
        webSocket: { maxPayloadSize: maxMessageBytes },
      });
      const socket = new undici.WebSocket(url, { dispatcher: agent });
      ws = socket;
      timer = setTimeout(() => end(`no websocket handshake within ${timeoutMs} ms`), timeoutMs);
      timer.unref();
      socket.addEventListener('open', () => {
        clearTimeout(timer);
        socket.send(subscribeRequest(newBlockQuery));
      });
      socket.addEventListener('message', () => {
        if (!closed) options.onBlock();
      });
      socket.addEventListener('error', (event) => end(`websocket error: ${(event as { message?: string }).message ?? 'connection failed'}`));
      socket.addEventListener('close', (event) => end(`websocket closed (${event.code}${event.reason === '' ? '' : `: ${event.reason}`})`));
    },
    (error: unknown) => end(`no websocket client: ${(error as Error).message}`),
  );
  return {
    close() {
      shut();
    },
  };
}

/**
 * A websocket that would not open or closed is tried again this much later (the follow's reading each
 * second goes on); every 200 ms while the new node has not answered yet (`starting`): it often starts
 * listening only just before the network resumes, and a reading once a second would see the first block
 * up to a second late.
 */
const resubscribeMs = 10_000;
const startingResubscribeMs = 200;

/** A subscription kept open while wanted: `ensure` opens one when none is (at most as often as above). */
export function keepSubscribed(options: {
  address: string;
  /** Replaces subscribeNewBlocks (tests); `false`: never. */
  subscribe?: typeof subscribeNewBlocks | false;
  onBlock: () => void;
  /** True while the node has not answered yet: retried every 200 ms. */
  starting: () => boolean;
  onEnd: (reason: string) => void;
}): { ensure(): void; close(): void } {
  let subscription: BlockSubscription | undefined;
  let after = 0;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  const ensure = (): void => {
    if (closed || subscription !== undefined || options.subscribe === false || Date.now() < after) return;
    after = Date.now() + (options.starting() ? startingResubscribeMs : resubscribeMs);
    subscription = (options.subscribe ?? subscribeNewBlocks)({
      address: options.address,
      onBlock: options.onBlock,
      onEnd: (reason) => {
        subscription = undefined;
        options.onEnd(reason);
        if (closed || !options.starting()) return;
        clearTimeout(retry);
        retry = setTimeout(ensure, Math.max(0, after - Date.now()));
        retry.unref();
      },
    });
  };
  return {
    ensure,
    close() {
      closed = true;
      clearTimeout(retry);
      subscription?.close();
      subscription = undefined;
    },
  };
}
