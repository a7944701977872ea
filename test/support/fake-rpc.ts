/**
 * A fake CometBFT RPC on a real local port: each path answers what the test set last, as a node would
 * (a JSON-RPC `result`) or as a hostile one might (any body, a body trickled a byte at a time, a body
 * that never ends). The shapes of a real node's answers (REFERENCE §6) are built by the functions below.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Reply =
  /** A node's answer: `{"jsonrpc":"2.0","id":-1,"result":…}`. */
  | { result: unknown }
  /** Any body, as it is. */
  | { body: string; status?: number }
  /** `body`, one byte every `everyMs` (a slow-loris answer). */
  | { trickle: string; everyMs: number }
  /** A 200 whose body never ends: 64 KiB chunks until the client hangs up. */
  | { endless: true }
  /**
   * `/websocket`: the handshake, then a server that never answers a close frame: `silent` sends
   * nothing, `flood` 7 MB frames, `pings` a ping every 50 ms, `slow` one byte of a frame every 200 ms.
   */
  | { websocket: 'silent' | 'flood' | 'pings' | 'slow' };

export interface FakeRpc {
  /** `tcp://127.0.0.1:<port>`, as CHAINVISOR_RPC_ADDRESS is written. */
  address: string;
  /** From now on, requests whose path starts with `path` (`/status`, `/consensus_state` …) get `reply`. */
  answer(path: string, reply: Reply): void;
  /** The paths asked so far. */
  requests: string[];
  close(): Promise<void>;
}

export const wrap = (result: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: -1, result });

export async function startFakeRpc(): Promise<FakeRpc> {
  const replies = new Map<string, Reply>();
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push(url);
    const path = [...replies.keys()].filter((p) => url.startsWith(p)).sort((a, b) => b.length - a.length)[0];
    const reply = path === undefined ? undefined : replies.get(path);
    if (reply === undefined || 'websocket' in reply) return void res.writeHead(404).end();
    if ('result' in reply) return void res.writeHead(200, { 'content-type': 'application/json' }).end(wrap(reply.result));
    if ('body' in reply) return void res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(reply.body);
    res.writeHead(200, { 'content-type': 'application/json' });
    if ('trickle' in reply) {
      let i = 0;
      const timer = setInterval(() => {
        if (i >= reply.trickle.length || res.destroyed) {
          clearInterval(timer);
          timers.delete(timer);
          return void res.end();
        }
        res.write(reply.trickle[i++]);
      }, reply.everyMs);
      timers.add(timer);
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, '[');
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });
  server.on('upgrade', (req: http.IncomingMessage, socket: Socket) => {
    const reply = replies.get('/websocket');
    requests.push(req.url ?? '/');
    if (reply === undefined || !('websocket' in reply)) return void socket.destroy();
    const accept = createHash('sha1')
      .update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    socket.on('data', () => undefined); // a close frame from the client is never answered
    socket.on('error', () => undefined);
    const every = (ms: number, send: () => void): void => {
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : send()), ms);
      timers.add(timer);
    };
    if (reply.websocket === 'flood') {
      const payload = Buffer.alloc(7_000_000, 'x');
      const head = Buffer.from([0x82, 127, 0, 0, 0, 0, 0, 0, 0, 0]);
      head.writeUInt32BE(payload.length, 6);
      every(50, () => socket.writableLength < 32_000_000 && socket.write(Buffer.concat([head, payload])));
    } else if (reply.websocket === 'pings') every(50, () => socket.write(Buffer.from([0x89, 0])));
    else if (reply.websocket === 'slow') {
      const frame = Buffer.from([0x81, 100, ...Buffer.alloc(100, 'y')]);
      let i = 0;
      every(200, () => socket.write(frame.subarray(i % frame.length, (i++ % frame.length) + 1)));
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answer: (path, reply) => void replies.set(path, reply),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** /status of a node at `height` whose validator is `address` with `power` ("0": not a validator). */
export function statusResult(o: { height: number | string; address: string; power: string }): unknown {
  return {
    node_info: { network: 'test-chain', version: '0.38.12' },
    sync_info: { latest_block_height: String(o.height), catching_up: false },
    validator_info: { address: o.address, pub_key: { type: 'tendermint/PubKeyEd25519', value: 'AAAA' }, voting_power: o.power },
  };
}

/** `BA{n:x_…} power/total = share`, the string /consensus_state gives per vote set. */
export function bitArray(votes: boolean[], power: number | string, total: number | string): string {
  const share = Number(total) > 0 ? Number(power) / Number(total) : 0;
  return `BA{${votes.length}:${votes.map((v) => (v ? 'x' : '_')).join('')}} ${power}/${total} = ${share.toFixed(2)}`;
}

/** /consensus_state at `height`/`round`, the round's prevote and precommit bit arrays. */
export function consensusResult(o: { height: number; round?: number; prevotes: string; precommits?: string }): unknown {
  const round = o.round ?? 0;
  const set = { round, prevotes: ['nil-Vote'], prevotes_bit_array: o.prevotes, precommits: ['nil-Vote'], precommits_bit_array: o.precommits ?? 'nil-BitArray' };
  return { round_state: { 'height/round/step': `${o.height}/${round}/6`, start_time: '2026-01-01T00:00:00Z', height_vote_set: [set] } };
}

/** /dump_consensus_state, as far as the validator set goes. */
export function dumpResult(addresses: string[]): unknown {
  return { round_state: { validators: { validators: addresses.map((address) => ({ address, voting_power: '10', proposer_priority: '0' })) } }, peers: [] };
}

/** /commit of a block at `height` signed by `signers` (block_id_flag 2). */
export function commitResult(o: { height: number; time: string; signers: string[] }): unknown {
  return {
    signed_header: {
      header: { height: String(o.height), time: o.time },
      commit: {
        height: String(o.height),
        round: 0,
        signatures: o.signers.map((validator_address) => ({ block_id_flag: 2, validator_address, timestamp: o.time, signature: 'AAAA' })),
      },
    },
    canonical: true,
  };
}
