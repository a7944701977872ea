/**
 * Bodies chainvisor does not need (issue #31): an endless answer is read no further than asked, and
 * its connection closed, so it costs neither memory nor CPU.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';

import { createHttpClient, dropBody, readSome } from '../../../src/shared/net/index.js';
import { type FaultServer, startFaultServer } from '../../support/fault-server.js';
import { waitFor } from '../../support/home.js';

async function endless(t: TestContext): Promise<{ server: FaultServer; open: () => Promise<import('node:stream').Readable> }> {
  const server = await startFaultServer();
  t.after(() => server.close());
  server.route('/endless', { always: { kind: 'endless' } });
  server.route('/small', { body: 'ok' });
  const client = createHttpClient({ timeoutMs: 5000 });
  t.after(() => client.close());
  return { server, open: async () => (await client.request(new URL(server.url('/endless')), { headers: {} })).body };
}

test('readSome stops at its limit and closes the connection of an endless body', async (t) => {
  const { server, open } = await endless(t);
  const start = await readSome(await open(), 16 * 1024);
  assert.equal(start.length, 16 * 1024);
  await waitFor(() => server.cut === 1, 'the server sees its answer cut');
});

test('dropBody reads at most its limit, or nothing, then closes; it never fails', async (t) => {
  const { server, open } = await endless(t);
  await dropBody(await open());
  await waitFor(() => server.cut === 1, 'the first answer cut after 64 KiB');
  await dropBody(await open(), 0);
  await waitFor(() => server.cut === 2, 'the second cut at once');
  const body = await open();
  body.destroy(new Error('broken'));
  await dropBody(body);
});
