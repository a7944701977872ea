import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { parseListenAddress, startHttpServer } from '../../../src/observe/http/index.js';
import { memoryLogger } from '../../support/download-kit.js';

async function withServer(token: string, run: (origin: string, healthy: { ok: boolean }) => Promise<void>): Promise<void> {
  const healthy = { ok: true };
  const server = await startHttpServer({
    listen: parseListenAddress('127.0.0.1:0'),
    token,
    logger: memoryLogger().logger,
    routes: {
      metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: 'chainvisor_node_up 1\n' }),
      health: async () => (healthy.ok ? { ok: true, reason: null } : { ok: false, reason: 'the node is exited' }),
      status: async () => ({ current: { name: 'genesis' } }),
    },
  });
  try {
    await run(`http://${server.address}`, healthy);
  } finally {
    await server.close();
  }
}

describe('HTTP endpoint', () => {
  test('a missing or wrong bearer token is refused with 401 on every path; the right one is served', async () => {
    await withServer('s3cret-token', async (origin) => {
      for (const path of ['/metrics', '/healthz', '/status', '/nope']) {
        assert.equal((await fetch(`${origin}${path}`)).status, 401, `${path} without a token`);
        assert.equal((await fetch(`${origin}${path}`, { headers: { authorization: 'Bearer wrong' } })).status, 401, `${path} with a wrong token`);
        assert.equal((await fetch(`${origin}${path}`, { headers: { authorization: 'Basic s3cret-token' } })).status, 401, `${path} with another scheme`);
      }
      const ok = await fetch(`${origin}/metrics`, { headers: { authorization: 'Bearer s3cret-token' } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /chainvisor_node_up 1/);
    });
  });

  test('/healthz is 200 while healthy, 503 with a JSON reason otherwise; unknown paths 404', async () => {
    await withServer('', async (origin, healthy) => {
      const up = await fetch(`${origin}/healthz`);
      assert.equal(up.status, 200);
      assert.deepEqual(await up.json(), { status: 'ok' });
      healthy.ok = false;
      const down = await fetch(`${origin}/healthz`);
      assert.equal(down.status, 503);
      assert.deepEqual(await down.json(), { status: 'unhealthy', reason: 'the node is exited' });
      assert.deepEqual(await (await fetch(`${origin}/status`)).json(), { current: { name: 'genesis' } });
      assert.equal((await fetch(`${origin}/other`)).status, 404);
      assert.equal((await fetch(`${origin}/status`, { method: 'POST' })).status, 405);
    });
  });

  test('addresses: host:port, [v6]:port; loopback told apart; anything else is a configuration error', async () => {
    assert.deepEqual(parseListenAddress('127.0.0.1:9102'), { host: '127.0.0.1', port: 9102, loopback: true });
    assert.deepEqual(parseListenAddress('[::1]:9102'), { host: '::1', port: 9102, loopback: true });
    assert.deepEqual(parseListenAddress('0.0.0.0:9102'), { host: '0.0.0.0', port: 9102, loopback: false });
    for (const bad of ['9102', 'localhost', 'host:99999', ':9102', 'a b:1']) {
      assert.throws(() => parseListenAddress(bad), { code: 'CHAINVISOR_HTTP_ADDRESS_INVALID', exitCode: 78 }, bad);
    }
  });

  test('a port already taken is a configuration error naming the address', async () => {
    await withServer('', async (origin) => {
      const taken = origin.replace('http://', '');
      await assert.rejects(
        startHttpServer({ listen: parseListenAddress(taken), token: '', logger: memoryLogger().logger, routes: {} as never }),
        (error: { code?: string; message: string; exitCode?: number }) =>
          error.code === 'CHAINVISOR_HTTP_LISTEN_FAILED' && error.exitCode === 78 && error.message.includes(taken),
      );
    });
  });
});
