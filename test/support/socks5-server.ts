/**
 * A SOCKS5 proxy on 127.0.0.1, port 0 (RFC 1928, with RFC 1929's user and password), as a validator's
 * way out may be `socks5://ops:secret@gateway:1080`. Like the HTTP test proxy it resolves names itself
 * from `hosts`, so a name there works only through it. With `credentials` it accepts only the
 * user/password method and those credentials; without, only "no authentication". Every greeting
 * (the methods offered), login and CONNECT target is recorded. `close()` ends every connection.
 */
import net, { type AddressInfo, type Socket } from 'node:net';

export interface Socks5Server {
  /** `socks5://127.0.0.1:<port>`. */
  url: string;
  /** The methods each greeting offered (0 none, 2 user/password). */
  offered: number[][];
  /** `user:password` of each login. */
  logins: string[];
  /** `host:port` of each CONNECT. */
  targets: string[];
  close(): Promise<void>;
}

export async function startSocks5Server(options: { hosts: Record<string, string>; credentials?: string }): Promise<Socks5Server> {
  const sockets = new Set<Socket>();
  const result: Omit<Socks5Server, 'url' | 'close'> = { offered: [], logins: [], targets: [] };
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'login' | 'request' | 'piped' = 'greeting';
    client.on('data', (data: Buffer) => {
      if (stage === 'piped') return;
      buffer = Buffer.concat([buffer, data]);
      for (;;) {
        const used = step();
        if (used === 0) return;
        buffer = buffer.subarray(used);
      }
    });
    /** Handles one whole message at the front of the buffer; answers how many bytes it used (0: wait). */
    function step(): number {
      if (stage === 'greeting') {
        if (buffer.length < 2 || buffer.length < 2 + (buffer[1] ?? 0)) return 0;
        const methods = [...buffer.subarray(2, 2 + (buffer[1] ?? 0))];
        result.offered.push(methods);
        const wanted = options.credentials === undefined ? 0x00 : 0x02;
        if (!methods.includes(wanted)) {
          client.end(Buffer.from([0x05, 0xff]));
          return 0;
        }
        client.write(Buffer.from([0x05, wanted]));
        stage = wanted === 0x02 ? 'login' : 'request';
        return 2 + methods.length;
      }
      if (stage === 'login') {
        const userLength = buffer[1] ?? 0;
        const passLength = buffer[2 + userLength];
        if (passLength === undefined || buffer.length < 3 + userLength + passLength) return 0;
        const login = `${buffer.subarray(2, 2 + userLength).toString()}:${buffer.subarray(3 + userLength, 3 + userLength + passLength).toString()}`;
        result.logins.push(login);
        if (login !== options.credentials) {
          client.end(Buffer.from([0x01, 0x01]));
          return 0;
        }
        client.write(Buffer.from([0x01, 0x00]));
        stage = 'request';
        return 3 + userLength + passLength;
      }
      if (stage === 'request') return request();
      return 0;
    }
    function request(): number {
      if (buffer.length < 5) return 0;
      const type = buffer[3];
      let host: string;
      let end: number;
      if (type === 0x01) {
        end = 10;
        if (buffer.length < end) return 0;
        host = [...buffer.subarray(4, 8)].join('.');
      } else if (type === 0x03) {
        end = 5 + (buffer[4] ?? 0) + 2;
        if (buffer.length < end) return 0;
        host = buffer.subarray(5, end - 2).toString();
      } else {
        client.end(Buffer.from([0x05, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
        return 0;
      }
      const port = buffer.readUInt16BE(end - 2);
      result.targets.push(`${host}:${port}`);
      const address = options.hosts[host.toLowerCase()] ?? (net.isIP(host) !== 0 ? host : undefined);
      if (address === undefined) {
        client.end(Buffer.from([0x05, 0x04, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
        return 0;
      }
      stage = 'piped';
      const rest = buffer.subarray(end);
      const upstream = net.connect(port, address, () => {
        client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0, 0]));
        if (rest.length > 0) upstream.write(rest);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.end(Buffer.from([0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0])));
      client.on('close', () => upstream.destroy());
      return 0;
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `socks5://127.0.0.1:${port}`,
    ...result,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
