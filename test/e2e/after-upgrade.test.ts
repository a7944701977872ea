/**
 * The follow after an upgrade (issue #26) on the simulated network: chainvisor runs the genesis node
 * with 10 simulated peers (`--sim-peers-power`); after the switch the network waits for 2/3 of the
 * power (`--sim-peers-back-after`), then commits the first block at the height. Status, metrics,
 * webhooks and log lines say waiting, confirmed, not-signing and stalled by the names of the issue.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import type { NodeAddresses } from '@chainvisor/simd';
import { proposeUpgrade, waitFor } from '@chainvisor/simd/testing';

import type { AfterUpgrade } from '../../src/shared/events/index.js';
import { chainvisorCommand } from '../support/chainvisor-command.js';
import { type ChainvisorSim, chainvisorSim, heightOf, type Running } from '../support/chainvisor-sim.js';
import { unusedPort } from '../support/ports.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface Upgraded {
  sim: ChainvisorSim;
  run: Running;
  receiver: WebhookReceiver;
  /** `run`'s HTTP endpoint (none in the manual-upgrade case). */
  http?: string;
  height: number;
  v2: NodeAddresses;
  /** Every distinct `afterUpgrade` that `chainvisor status --output json` showed meanwhile. */
  seen: AfterUpgrade[];
}

const voting = ['--voting-period', '500ms', '--deposit-period', '500ms', '--auto-vote'];

async function afterUpgradeOf(sim: ChainvisorSim): Promise<AfterUpgrade | null> {
  const r = await sim.cv(['status', '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { afterUpgrade: AfterUpgrade | null }).afterUpgrade;
}

/** A governance upgrade to v2 under `chainvisor run`, the node started with `network` flags; returns once v2 listens. */
async function governanceUpgrade(t: TestContext, network: string[], env: Record<string, string> = {}, rpcPort?: number): Promise<Upgraded> {
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.close());
  const http = `127.0.0.1:${await unusedPort()}`;
  const sim = await chainvisorSim(t, ['genesis', 'v2'], { CHAINVISOR_WEBHOOK_URL: receiver.url, CHAINVISOR_HTTP_ADDRESS: http, ...env }, voting);
  const add = await sim.cv(['add-upgrade', 'v2', sim.bin('v2')]);
  assert.equal(add.code, 0, add.stderr);
  // A known RPC port: the follow finds it from the node's flag, as chainvisor finds any node's.
  const run = sim.run(['--rpc.laddr', `tcp://127.0.0.1:${rpcPort ?? (await unusedPort())}`, ...network]);
  const genesis = await run.nodeOf('genesis');
  await waitFor(async () => (await heightOf(genesis).catch(() => 0)) >= 2, 'genesis blocks');
  const height = (await heightOf(genesis)) + 150;
  await proposeUpgrade(sim.bin('genesis'), sim.home, { name: 'v2', height, info: sim.built.versions.v2?.info });
  const v2 = await run.nodeOf('v2');
  return { sim, run, receiver, http, height, v2, seen: [] };
}

/** The same document over `run`'s HTTP endpoint: a reading costs no process, so a short wait is not missed on a loaded machine. */
async function afterUpgradeOverHttp(http: string): Promise<AfterUpgrade | null> {
  const response = await fetch(`http://${http}/status`);
  assert.equal(response.status, 200);
  return ((await response.json()) as { afterUpgrade: AfterUpgrade | null }).afterUpgrade;
}

/**
 * Polls the status until `until` holds for its afterUpgrade, recording each distinct one: over the HTTP
 * endpoint where `run` has one (each `chainvisor status` is a process of its own, a second or more apart
 * under load: the 4 s of a wait were once read only once), else `status --output json`.
 */
async function watchStatus(u: Upgraded, until: (a: AfterUpgrade) => boolean, what: string, ms = 60_000): Promise<AfterUpgrade> {
  return waitFor(
    async () => {
      const a = u.http === undefined ? await afterUpgradeOf(u.sim) : await afterUpgradeOverHttp(u.http);
      if (a !== null && JSON.stringify(a) !== JSON.stringify(u.seen.at(-1))) u.seen.push(a);
      return a !== null && until(a) ? a : undefined;
    },
    `${what}\n${JSON.stringify(u.seen)}\n${u.run.output().slice(-3000)}`,
    ms,
  );
}

/**
 * Records every distinct afterUpgrade over `run`'s HTTP endpoint, every 100 ms, until stopped: the test's
 * own commands in between (each a process, seconds apart under load) must not hide a step of the wait.
 */
function recordStatus(u: Upgraded & { http: string }): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const a = await afterUpgradeOverHttp(u.http).catch(() => null);
      if (a !== null && JSON.stringify(a) !== JSON.stringify(u.seen.at(-1))) u.seen.push(a);
      await sleep(100);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

const webhooks = (u: Upgraded, event: string) => u.receiver.received.map((r) => r.body).filter((b) => b.event === event);

test('after the switch: waiting with the prevote share, then confirmed and signed, in status, metrics, webhooks and logs', async (t) => {
  // The wait lasts most of 20 s: room for the status commands it is read through on a loaded machine.
  const u = await governanceUpgrade(t, ['--sim-peers-power', '9000000', '--sim-peers-back-after', '20s']);
  const stopRecording = recordStatus({ ...u, http: u.http as string });
  t.after(stopRecording);
  const waiting = await watchStatus(u, (a) => a.state === 'waiting' && a.prevoteRatio !== null, 'status: waiting with a share');
  // The command shows the same state: it reads the status file, which `run` rewrites within a second.
  const byCommand = await waitFor(async () => {
    const a = await afterUpgradeOf(u.sim);
    return a?.state === 'waiting' ? a : undefined;
  }, 'chainvisor status showing the wait');
  assert.equal(byCommand.upgrade, 'v2');
  assert.equal(waiting.upgrade, 'v2');
  assert.equal(waiting.height, u.height);
  assert.ok(waiting.prevoteRatio !== null && waiting.prevoteRatio < 2 / 3, JSON.stringify(waiting));
  assert.equal(waiting.ownPrevote, true, 'this validator runs v2 and prevotes');
  assert.equal(waiting.signed, null);
  const metricsWaiting = await (await fetch(`http://${u.http}/metrics`)).text();
  assert.match(metricsWaiting, /^chainvisor_network_prevote_ratio\{upgrade="v2"\} 0\.\d+/m);
  assert.match(metricsWaiting, /^chainvisor_upgrade_confirmed\{upgrade="v2"\} 0$/m);
  const text = await u.sim.cv(['status']);
  assert.match(
    text.stdout,
    new RegExp(
      `after upgrade +v2: waiting at height ${u.height}, round \\d+: [\\d.]+ % of the voting power prevoted \\(needs more than 66\\.7 %\\), this validator prevoted`,
    ),
  );

  const confirmed = await watchStatus(u, (a) => a.state === 'confirmed', 'status: confirmed');
  await stopRecording();
  assert.equal(confirmed.signed, true);
  assert.equal(confirmed.height, u.height);
  assert.ok(confirmed.seconds !== null && confirmed.seconds > 2 && confirmed.seconds < 60, JSON.stringify(confirmed));
  assert.equal(confirmed.prevoteRatio, null);
  const shares = u.seen.filter((a) => a.state === 'waiting').map((a) => a.prevoteRatio);
  assert.ok(new Set(shares).size >= 2, `the share rose while waiting: ${JSON.stringify(shares)}`);

  const metrics = await (await fetch(`http://${u.http}/metrics`)).text();
  assert.match(metrics, /^chainvisor_upgrade_confirmed\{upgrade="v2"\} 1$/m);
  assert.match(metrics, /^chainvisor_validator_signed\{upgrade="v2"\} 1$/m);
  assert.match(metrics, /^chainvisor_upgrade_confirm_seconds\{upgrade="v2"\} \d/m);
  assert.doesNotMatch(metrics, /^chainvisor_network_prevote_ratio\{/m, 'present only while waiting');

  await waitFor(async () => webhooks(u, 'upgrade-confirmed').length === 1 || undefined, 'the upgrade-confirmed webhook');
  const [wait] = webhooks(u, 'network-waiting');
  assert.ok(wait, JSON.stringify(u.receiver.received.map((r) => r.body.event)));
  assert.equal(wait.state, 'waiting');
  assert.deepEqual(wait.upgrade, { name: 'v2', height: u.height });
  assert.equal(typeof wait.text, 'string');
  const [done] = webhooks(u, 'upgrade-confirmed');
  assert.equal(done?.signed, true);
  assert.equal(typeof done?.seconds, 'number');
  assert.match(u.run.output(), /network-waiting/);
  assert.match(u.run.output(), /upgrade-confirmed/);
  assert.deepEqual(webhooks(u, 'validator-not-signing'), []);
  assert.deepEqual(webhooks(u, 'upgrade-stalled'), []);
  // The latency of the confirmation (block time → event), for the record.
  const noticed = /noticedMs[=:"\s]+(\d+)/.exec(u.run.output());
  if (noticed) t.diagnostic(`upgrade-confirmed ${noticed[1]} ms after the block's time`);
  assert.equal(await u.run.stop(), 0);
});

test('a validator that does not sign: confirmed with signed false, then validator-not-signing', async (t) => {
  // The peers hold 3/4 of the power: the chain goes on without this validator's votes.
  const u = await governanceUpgrade(t, ['--sim-peers-power', '3000000', '--sim-not-signing']);
  const a = await watchStatus(u, (s) => s.state === 'not-signing', 'status: not-signing');
  assert.equal(a.signed, false);
  await waitFor(async () => webhooks(u, 'validator-not-signing').length === 1 || undefined, 'the validator-not-signing webhook');
  assert.equal(webhooks(u, 'upgrade-confirmed')[0]?.signed, false);
  const metrics = await (await fetch(`http://${u.http}/metrics`)).text();
  assert.match(metrics, /^chainvisor_validator_signed\{upgrade="v2"\} 0$/m);
  assert.match(u.run.output(), /validator-not-signing/);
  assert.equal(await u.run.stop(), 0);
});

test('stalled: still waiting after CHAINVISOR_CONFIRM_WARN, repeated, then confirmed', async (t) => {
  const u = await governanceUpgrade(t, ['--sim-peers-power', '9000000', '--sim-peers-back-after', '9s'], { CHAINVISOR_CONFIRM_WARN: '2s' });
  // The stall as the follow read it at the height (a reading while the node's RPC was busy has no height yet; the next repeats it).
  const stalled = await watchStatus(u, (a) => a.state === 'stalled' && a.height !== null, 'status: stalled');
  assert.equal(stalled.height, u.height);
  await waitFor(async () => webhooks(u, 'upgrade-stalled').length >= 2 || undefined, 'upgrade-stalled twice', 30_000);
  const metrics = await (await fetch(`http://${u.http}/metrics`)).text();
  assert.match(metrics, /^chainvisor_upgrade_confirmed\{upgrade="v2"\} 0$/m);
  const confirmed = await watchStatus(u, (a) => a.state === 'confirmed', 'status: confirmed after the stall');
  assert.equal(confirmed.signed, true);
  assert.match(u.run.output(), /upgrade-stalled/);
  assert.equal(await u.run.stop(), 0);
});

/**
 * A node with no voting power (a sentry, an RPC node) seen on the simulated network: the node's RPC
 * behind a proxy whose /status says `voting_power: "0"` for another address, as a sentry's does.
 */
async function sentryProxy(t: TestContext, rpcPort: number): Promise<string> {
  const server = http.createServer((req, res) => {
    const upstream = http.get({ host: '127.0.0.1', port: rpcPort, path: req.url ?? '/', headers: { accept: 'application/json' } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        let body = Buffer.concat(chunks).toString('utf8');
        if ((req.url ?? '').startsWith('/status')) {
          const doc = JSON.parse(body) as { result: { validator_info: { address: string; voting_power: string } } };
          doc.result.validator_info = { ...doc.result.validator_info, address: 'F'.repeat(40), voting_power: '0' };
          body = JSON.stringify(doc);
        }
        res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' }).end(body);
      });
    });
    upstream.on('error', () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined));
  server.unref();
  return `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('a sentry with no voting power: ownPrevote and signed are null, no validator_signed series, never not-signing', async (t) => {
  const rpcPort = await unusedPort();
  const proxy = await sentryProxy(t, rpcPort);
  const u = await governanceUpgrade(t, ['--sim-peers-power', '9000000', '--sim-peers-back-after', '12s'], { CHAINVISOR_RPC_ADDRESS: proxy }, rpcPort);
  const waiting = await watchStatus(u, (a) => a.state === 'waiting' && a.prevoteRatio !== null, 'status: waiting');
  assert.equal(waiting.ownPrevote, null);
  const confirmed = await watchStatus(u, (a) => a.state === 'confirmed', 'status: confirmed');
  assert.equal(confirmed.signed, null);
  await waitFor(async () => webhooks(u, 'upgrade-confirmed').length === 1 || undefined, 'the upgrade-confirmed webhook');
  assert.equal(webhooks(u, 'upgrade-confirmed')[0]?.signed, null);
  const metrics = await (await fetch(`http://${u.http}/metrics`)).text();
  assert.match(metrics, /^chainvisor_upgrade_confirmed\{upgrade="v2"\} 1$/m);
  assert.doesNotMatch(metrics, /^chainvisor_validator_signed\{/m);
  await waitFor(async () => (await heightOf(u.v2).catch(() => 0)) >= u.height + 4, 'blocks past the first 3');
  assert.deepEqual(webhooks(u, 'validator-not-signing'), []);
  const text = await u.sim.cv(['status']);
  assert.match(text.stdout, /after upgrade +v2: confirmed, first block at height \d+ [\d.]+ s after the switch; this node has no voting power/);
  assert.equal(await u.run.stop(), 0);
});

test('a manual upgrade at an exact height: the first block of the new binary is the next one, confirmed and signed', async (t) => {
  const sim = await chainvisorSim(t, ['genesis', 'v2']);
  const run = sim.run(['--rpc.laddr', `tcp://127.0.0.1:${await unusedPort()}`, '--sim-peers-power', '2000000']);
  const genesis = await run.nodeOf('genesis');
  await waitFor(async () => (await heightOf(genesis).catch(() => 0)) >= 3, 'genesis blocks');
  const h = (await heightOf(genesis)) + 150;
  const add = await sim.cv(['add-upgrade', 'v2', sim.bin('v2'), '--upgrade-height', String(h), '--restart-now']);
  assert.equal(add.code, 0, add.stderr);
  await run.nodeOf('v2');
  const u = { sim, run, seen: [] } as unknown as Upgraded;
  const a = await watchStatus(u, (s) => s.state === 'confirmed', 'status: confirmed');
  assert.equal(a.height, h + 1, 'the old binary committed the halt height; the new one the next');
  assert.equal(a.signed, true);
  assert.equal(await run.stop(), 0);
});

test('the node exits during the follow: the follow ends, the exit code is the node’s', async (t) => {
  const u = await governanceUpgrade(t, ['--sim-peers-power', '9000000', '--sim-peers-back-after', '60s']);
  await watchStatus(u, (a) => a.state === 'waiting' && a.prevoteRatio !== null, 'status: waiting');
  process.kill(u.v2.pid, 'SIGKILL');
  const code = await Promise.race([u.run.exit, sleep(30_000, 'timeout' as const)]);
  assert.notEqual(code, 'timeout', u.run.output());
  // chainvisor's exit is the node's (cosmovisor's rule for an exit that is not an upgrade), not the follow's.
  assert.equal(code, 128 + 9, u.run.output());
  const after = u.run
    .output()
    .split('\n')
    .filter((l) => /upgrade-confirmed|upgrade-stalled|validator-not-signing/.test(l));
  assert.deepEqual(after, [], 'nothing followed after the node exited');
  assert.equal((await afterUpgradeOf(u.sim))?.state, 'waiting', 'the last reading stays in status');
});

test('status --watch: in a pipe, a line per change; on a terminal, the screen with the prevote bar; Ctrl-C ends it with 0', async (t) => {
  const u = await governanceUpgrade(t, ['--sim-peers-power', '9000000', '--sim-peers-back-after', '20s']);
  const pipe = spawn(...chainvisorCommand(['status', '--watch']), { env: { ...process.env, ...u.sim.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let lines = '';
  pipe.stdout.setEncoding('utf8').on('data', (c: string) => (lines += c));
  const pipeExit = new Promise<number | null>((resolve) => pipe.on('exit', (code) => resolve(code)));
  t.after(() => pipe.kill('SIGKILL'));

  let tty: { out: string; exit: Promise<number | null>; kill: () => void } | undefined;
  const script = await import('node:fs/promises').then((fs) =>
    fs.access('/usr/bin/script').then(
      () => true,
      () => false,
    ),
  );
  if (script) {
    const [cmd, args] = chainvisorCommand(['status', '--watch']);
    // `exec`, and SHELL pinned: without it, a shell such as dash stays between script(1) and chainvisor, dies of
    // the Ctrl-C itself, and script(1) reports 130 whatever chainvisor returned.
    const line = `exec ${[cmd, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')}`;
    const env = { ...process.env, ...u.sim.env, SHELL: '/bin/sh' };
    const p = spawn('/usr/bin/script', ['-qec', line, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const view = { out: '', exit: new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code))), kill: () => p.stdin.write('\x03') };
    p.stdout.setEncoding('utf8').on('data', (c: string) => (view.out += c));
    t.after(() => p.kill('SIGKILL'));
    tty = view;
  } else t.diagnostic('no script(1) here: the terminal case was not run');

  await watchStatus(u, (a) => a.state === 'confirmed', 'status: confirmed');
  // The pipe reads the status file once a second: its confirmed line follows.
  await waitFor(() => / v2: confirmed, first block/.test(lines) || undefined, `the confirmed line in the pipe\n${lines}`);
  pipe.kill('SIGINT');
  assert.equal(await pipeExit, 0);
  const printed = lines.trim().split('\n');
  assert.ok(
    printed.some((l) => / v2: waiting at height \d+, round \d+: [\d.]+ % of the voting power prevoted/.test(l)),
    lines,
  );
  assert.ok(
    printed.some((l) => / v2: confirmed, first block at height \d+ [\d.]+ s after the switch; this validator signed it/.test(l)),
    lines,
  );
  assert.equal(new Set(printed.map((l) => l.replace(/^\S+ /, ''))).size, printed.length, 'one line per change, no repeats');

  if (tty) {
    tty.kill();
    const code = await tty.exit;
    assert.equal(code, 0, `script(1) ended with ${code}; the terminal's last output: ${JSON.stringify(tty.out.slice(-1500))}`);
    assert.match(tty.out, /\x1b\[H\x1b\[2J/, 'redrawn in place');
    assert.match(tty.out, /prevotes \[[█░|]+\] +[\d.]+ %/);
    assert.match(tty.out, /this validator prevoted/);
    assert.match(tty.out, /plan +/);
  }
  assert.equal(await u.run.stop(), 0);
});
