/**
 * Once `run` decides to exit, nothing it opened holds it (issue #44): SIGTERM while the follow holds a
 * websocket whose server never answers the close (silent, flooding 7 MB frames, pinging, trickling a
 * frame), with a client holding a keep-alive connection to the HTTP endpoint, a gRPC channel to a server
 * that accepts and never speaks, the file watches and the timers. Each run exits within
 * DAEMON_SHUTDOWN_GRACE plus a few seconds.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';

import { plan } from '../support/fake-node.js';
import { bitArray, consensusResult, dumpResult, startFakeRpc, statusResult } from '../support/fake-rpc.js';
import { makeHome, waitFor } from '../support/home.js';
import { endpointOf } from '../support/observe-kit.js';

const self = 'A'.repeat(40);
const peer = 'B'.repeat(40);
const graceMs = 2000;
/** What the exit may take beyond the node's grace: the websocket's close deadline (1 s) and the last deliveries. */
const slackMs = 4000;

describe('run exits after SIGTERM whatever it holds open', () => {
  for (const mode of ['silent', 'flood', 'pings', 'slow'] as const) {
    test(`a websocket server that never answers the close (${mode}), an HTTP keep-alive client, a silent gRPC server`, async (t) => {
      const rpc = await startFakeRpc();
      const grpcSockets = new Set<net.Socket>();
      const grpc = net.createServer((socket) => {
        grpcSockets.add(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => grpc.listen(0, '127.0.0.1', resolve));
      const keepAlive = new http.Agent({ keepAlive: true });
      const h = await makeHome({
        CHAINVISOR_RPC_ADDRESS: rpc.address,
        DAEMON_GRPC_ADDRESS: `127.0.0.1:${(grpc.address() as net.AddressInfo).port}`,
        CHAINVISOR_PLAN_POLL_INTERVAL: '1s',
        CHAINVISOR_HTTP_ADDRESS: '127.0.0.1:0',
        DAEMON_SHUTDOWN_GRACE: `${graceMs / 1000}s`,
      });
      t.after(async () => {
        keepAlive.destroy();
        for (const socket of grpcSockets) socket.destroy();
        await new Promise((resolve) => grpc.close(resolve));
        await rpc.close();
        await h.cleanup();
      });
      // The new node at height 9, one validator of two: the follow waits for block 10 on the websocket.
      rpc.answer('/status', { result: statusResult({ height: 9, address: self, power: '10' }) });
      rpc.answer('/dump_consensus_state', { result: dumpResult([self, peer]) });
      rpc.answer('/consensus_state', { result: consensusResult({ height: 10, prevotes: bitArray([true, false], 10, 20) }) });
      rpc.answer('/websocket', { websocket: mode });
      await h.cliOk(['init', await h.fakeNode({ label: 'genesis' })]);
      await h.cliOk(['add-upgrade', 'v2', await h.fakeNode({ label: 'v2' })]);
      await fs.mkdir(path.join(h.home, 'data'), { recursive: true });
      await fs.writeFile(path.join(h.home, 'data', 'upgrade-info.json'), JSON.stringify(plan('v2', 10)));
      const run = h.spawn(['run', 'start']);
      let output = '';
      run.all.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const endpoint = await endpointOf(h);
      await waitFor(() => rpc.requests.includes('/websocket'), 'the follow opened the websocket', 20_000);
      await waitFor(() => grpcSockets.size > 0, 'the plan watch opened its gRPC channel', 20_000);
      const metrics = await new Promise<number>((resolve, reject) => {
        http
          .get(`${endpoint}/metrics`, { agent: keepAlive }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });
      assert.equal(metrics, 200);
      await new Promise((resolve) => setTimeout(resolve, mode === 'slow' ? 600 : 200));

      const stopAt = Date.now();
      run.kill('SIGTERM');
      const r = await run.catch((error: { exitCode?: number }) => error);
      const tookMs = Date.now() - stopAt;
      assert.equal(r.exitCode, 143, output);
      assert.ok(tookMs < graceMs + slackMs, `exited ${tookMs} ms after SIGTERM (at most ${graceMs + slackMs})\n${output}`);
      assert.deepEqual((await h.journalLines()).slice(-1), ['v2 got TERM']);
    });
  }
});
