/**
 * A network RPC for the twin check's hostile cases (issue #44): a CometBFT-shaped /status, /commit and
 * /validators of a chain the test steers on a real local port, which can also lie (another chain in its
 * headers, another height than the one asked), trickle every answer a byte a second, or send any body.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TestContext } from 'node:test';

export interface FakeNetwork {
  /** `http://127.0.0.1:<port>`: what CHAINVISOR_NETWORK_RPC is set to. */
  rpc: string;
  /** The newest height (/status) and the chain id of /status. */
  height: number;
  chainId: string;
  /** The validator address the set (/validators) holds, and the heights at which its signature is in the commit. */
  validator: string;
  signedAt: (height: number) => boolean;
  /** Lies of /commit: the chain id in its header, the height it claims whatever was asked. */
  commitChainId?: string;
  commitHeight?: number;
  /** Every answer from now on one byte a second. */
  trickle: boolean;
  /** A body of its own for a route (`status`, `commit`, `validators`) instead of the chain's answer. */
  raw?: (route: string) => string | undefined;
  /** Each request: its path and query, when it came and when its connection ended (ms, performance.now()). */
  requests: { url: string; at: number; closedAt?: number }[];
}

const blockMs = 1000;
const genesisMs = Date.parse('2026-01-01T00:00:00Z');
const timeOf = (height: number) => new Date(genesisMs + height * blockMs).toISOString();

export async function startFakeNetwork(t: TestContext, chain: Pick<FakeNetwork, 'height' | 'chainId' | 'validator'>): Promise<FakeNetwork> {
  const sockets = new Set<Socket>();
  const net: FakeNetwork = { rpc: '', ...chain, signedAt: () => false, trickle: false, requests: [] };
  const answerOf = (url: URL): unknown => {
    const route = url.pathname.slice(1);
    if (route === 'status')
      return { node_info: { network: net.chainId }, sync_info: { latest_block_height: String(net.height), latest_block_time: timeOf(net.height) } };
    if (route === 'validators') return { validators: [{ address: net.validator, voting_power: '10' }], total: '1' };
    const height = Number(url.searchParams.get('height') ?? net.height);
    const signatures = [{ block_id_flag: 2, validator_address: 'BB'.repeat(20) }];
    if (net.signedAt(height)) signatures.push({ block_id_flag: 2, validator_address: net.validator });
    const claimed = String(net.commitHeight ?? height);
    const header = { chain_id: net.commitChainId ?? net.chainId, height: claimed, time: timeOf(height) };
    return { signed_header: { header, commit: { height: claimed, round: 0, signatures } }, canonical: true };
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const request: FakeNetwork['requests'][number] = { url: `${url.pathname}${url.search}`, at: performance.now() };
    net.requests.push(request);
    res.on('close', () => (request.closedAt = performance.now()));
    const body = net.raw?.(url.pathname.slice(1)) ?? JSON.stringify({ jsonrpc: '2.0', id: -1, result: answerOf(url) });
    res.writeHead(200, { 'content-type': 'application/json' });
    if (!net.trickle) return void res.end(body);
    let i = 0;
    const timer = setInterval(() => {
      if (i < body.length && !res.destroyed) return void res.write(body[i++]);
      clearInterval(timer);
      res.end();
    }, 1000);
    res.on('close', () => clearInterval(timer));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  net.rpc = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return net;
}
