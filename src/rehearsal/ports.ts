/** Loopback ports of the scratch node's own: asked of the kernel (port 0), then released for the node to bind. */
import net from 'node:net';

export interface ScratchPorts {
  rpc: number;
  p2p: number;
  grpc: number;
  api: number;
  proxyApp: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

export async function scratchPorts(): Promise<ScratchPorts> {
  // Held together until all are known, so that no two are the same.
  const ports = new Set<number>();
  while (ports.size < 5) ports.add(await freePort());
  const [rpc, p2p, grpc, api, proxyApp] = [...ports] as [number, number, number, number, number];
  return { rpc, p2p, grpc, api, proxyApp };
}

/** The flags that put the node's listeners on these ports (the SDK's `start` and the simulated node take them). */
export function listenerFlags(ports: ScratchPorts): string[] {
  return ['--rpc.laddr', `tcp://127.0.0.1:${ports.rpc}`, '--grpc.address', `127.0.0.1:${ports.grpc}`, '--api.address', `tcp://127.0.0.1:${ports.api}`];
}
