/**
 * Ports for a node the tests start and must name beforehand (`--grpc.address`). A port found free by
 * listening on port 0 comes from the kernel's ephemeral range, where every other server the tests
 * start on port 0 and every outgoing connection land too: it can be taken again before the node binds
 * it (EADDRINUSE). These come from below that range, from a stretch that differs per process, and are
 * checked free when handed out.
 */
import net from 'node:net';

const FIRST = 20_000;
const LAST = 32_000; // the ephemeral range starts at 32768 on Linux
let next = FIRST + ((process.pid * 37) % (LAST - FIRST));

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port that was free a moment ago and that no port-0 listener or outgoing connection will take. */
export async function unusedPort(): Promise<number> {
  for (let tries = 0; tries < 500; tries++) {
    const port = next;
    next = next >= LAST ? FIRST : next + 1;
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${FIRST} and ${LAST}`);
}
