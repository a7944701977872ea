/**
 * A fake CometBFT RPC on a real local port: each path answers what the test set last, as a node would
 * (a JSON-RPC `result`) or as a hostile one might (any body, a body trickled a byte at a time, a body
 * that never ends). The shapes of a real node's answers (REFERENCE §6) are built by the functions below.
 */
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
  | { endless: true };

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
    if (reply === undefined) return void res.writeHead(404).end();
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
