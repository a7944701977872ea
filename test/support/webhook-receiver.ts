/**
 * A webhook receiver on 127.0.0.1, port 0: records every JSON POST in arrival order. Faults: answer
 * with a status, or accept the request and never answer (`hang`). `close()` ends every connection.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  body: Record<string, unknown>;
  authorization: string | undefined;
  /** What the receiver answered. */
  status: number;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  /** Every request answered, failed ones included. */
  received: Received[];
  /** The requests answered 2xx, in order. */
  delivered(): Received[];
  /** The next answers, in order; then 200. */
  answers: Array<number | 'hang'>;
  /** Requests left unanswered (`hang`). */
  hung: number;
  /** Answer every request this way. */
  always: number | 'hang' | undefined;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const sockets = new Set<Socket>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    delivered: () => receiver.received.filter((r) => r.status >= 200 && r.status < 300),
    answers: [],
    always: undefined,
    hung: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = receiver.answers.shift() ?? receiver.always ?? 200;
      if (answer === 'hang') {
        receiver.hung += 1;
        return;
      }
      receiver.received.push({
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        authorization: req.headers.authorization,
        status: answer,
        at: Date.now(),
      });
      res.writeHead(answer).end();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** A port that refuses connections (listened on once, then closed). */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}
