/**
 * A local file server for the end-to-end tests: serves a folder over HTTP on 127.0.0.1, port 0, and
 * is closed (its connections first) when the test ends. It counts requests and body bytes, and `mode`
 * switches faults on: an HTTP status for every request, or a bandwidth cap.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FileServer {
  url: string;
  /** Bytes of file bodies sent so far. */
  bytes(): number;
  requests(): number;
  mode: { status: number; bytesPerSecond: number };
}

export async function serveFiles(t: TestContext, root: string): Promise<FileServer> {
  let bytes = 0;
  let requests = 0;
  const mode = { status: 200, bytesPerSecond: 0 };
  const server = http.createServer((req, res) => {
    requests += 1;
    const file = path.join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    if (mode.status !== 200 || !file.startsWith(root + path.sep)) {
      res.writeHead(mode.status === 200 ? 403 : mode.status).end();
      return;
    }
    stat(file).then(
      async (s) => {
        res.writeHead(200, { 'content-length': s.size, 'content-type': 'application/octet-stream' });
        const stream = createReadStream(file, { highWaterMark: mode.bytesPerSecond > 0 ? 64 : 16 * 1024 });
        for await (const chunk of stream) {
          if (res.destroyed) break;
          bytes += (chunk as Buffer).length;
          if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
          if (mode.bytesPerSecond > 0) await sleep(((chunk as Buffer).length / mode.bytesPerSecond) * 1000);
        }
        res.end();
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, bytes: () => bytes, requests: () => requests, mode };
}
