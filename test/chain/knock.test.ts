/**
 * The TCP knock: something listening, nothing listening, and a name whose every address refuses
 * (`localhost`: ::1 and 127.0.0.1 where both are in /etc/hosts), which Node reports as an
 * AggregateError with an empty message (said through the shared asTransportError).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';

import { knockOn } from '../../src/chain/knock.js';
import { unusedPort } from '../support/ports.js';

test('a port something listens on answers the knock', async (t) => {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  assert.equal(await knockOn({ host: '127.0.0.1', port: (server.address() as net.AddressInfo).port }, 2000), undefined);
});

test('nothing listening on localhost: the refusal says why, never an empty message', async () => {
  const refusal = await knockOn({ host: 'localhost', port: await unusedPort() }, 2000);
  assert.ok(refusal instanceof Error);
  assert.match(refusal.message, /ECONNREFUSED/);
  assert.equal((refusal as { code?: unknown }).code, 'ECONNREFUSED');
});

test('a name whose every address refuses (IPv6 and IPv4 tried in turn): both refusals said', async () => {
  const port = await unusedPort();
  // What the system resolver gives for `localhost` where /etc/hosts names it for ::1 and 127.0.0.1.
  const lookup = (_host: string, _options: unknown, callback: (error: null, addresses: { address: string; family: number }[]) => void) =>
    callback(null, [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ]);
  const target = { host: 'two-addresses.invalid', port, lookup, autoSelectFamily: true };
  const refusal = await knockOn(target, 2000);
  assert.ok(refusal instanceof Error);
  assert.notEqual(refusal.message, '');
  assert.match(refusal.message, /ECONNREFUSED 127\.0\.0\.1/);
});
