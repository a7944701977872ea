/**
 * Never two signers (issue #32), on real processes: chainvisor runs a simulated validator home, and a
 * second simulated node with the same chain id plays "the network" (CHAINVISOR_NETWORK_RPC), one of its
 * peers signing with the validator home's own key at the heights the test chooses (--sim-peer-key):
 * the commits a second machine running that key leaves. No client is mocked: chainvisor reads the
 * network node's real CometBFT RPC.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { readAddresses } from '@chainvisor/simd';
import { waitFor } from '@chainvisor/simd/testing';

import { startAlertServices } from '../support/alert-services.js';
import { type ChainvisorSim, chainvisorSim, heightOf, type Running } from '../support/chainvisor-sim.js';
import { unusedPort } from '../support/ports.js';
import { startTwinNetwork, type TwinNetwork } from '../support/twin-network.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

/** The validator home runs with peers and does not sign: its signing state stays where it was (a node catching up). */
const quietValidator = ['--sim-peers-power', '3000000', '--sim-not-signing'];

interface LogLine {
  event?: string;
  msg?: string;
  level?: number;
  [field: string]: unknown;
}

/** chainvisor's own log lines (JSON) in a run's output; the node's lines are plain text. */
function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const eventsIn = (output: string, event: string) => logLines(output).filter((l) => l.event === event);
const nodeStarts = (output: string) => eventsIn(output, 'node-started').length;

async function setup(t: TestContext, env: Record<string, string> = {}): Promise<ChainvisorSim> {
  return chainvisorSim(t, ['genesis'], { CHAINVISOR_PLAN_POLL_INTERVAL: '0s', ...env });
}

async function network(t: TestContext, sim: ChainvisorSim, options: Omit<Parameters<typeof startTwinNetwork>[2], 'validatorHome'> = {}): Promise<TwinNetwork> {
  return startTwinNetwork(t, sim.bin('genesis'), { validatorHome: sim.home, ...options });
}

async function exited(run: Running): Promise<number | null> {
  return Promise.race([
    run.exit,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`chainvisor did not exit:\n${run.output()}`)), 90_000).unref()),
  ]);
}

test('a twin seen at start: exit 84, no node started, the key-in-use event, a critical PagerDuty page', async (t) => {
  const services = await startAlertServices();
  t.after(() => services.close());
  const sim = await setup(t, { CHAINVISOR_PAGERDUTY_ROUTING_KEY: services.routingKey, CHAINVISOR_PAGERDUTY_API_URL: services.origin });
  const net = await network(t, sim, { twin: {} });
  await net.waitForHeight(3);
  const address = (JSON.parse(await fs.readFile(path.join(sim.home, 'config', 'priv_validator_key.json'), 'utf8')) as { address: string }).address;

  const run = sim.run([], { CHAINVISOR_NETWORK_RPC: net.rpc });
  assert.equal(await exited(run), 84, run.output());
  const output = run.output();
  assert.match(output, /chainvisor: code: CHAINVISOR_KEY_IN_USE/);
  assert.match(
    output,
    new RegExp(`its address ${address} signed block \\d+ on the network \\(seen through ${net.rpc}/\\), above height 0, the last this home signed`),
  );
  assert.match(output, /chainvisor: hint: another machine runs this validator's key: find it and stop it/);
  assert.equal(nodeStarts(output), 0, 'no node was started');
  assert.equal(await readAddresses(sim.home).catch(() => undefined), undefined, 'the node never listened');
  const [found] = eventsIn(output, 'key-in-use');
  assert.equal(found?.address, address);
  assert.ok(typeof found?.seenHeight === 'number' && found.seenHeight >= 3, JSON.stringify(found));

  const pages = services.delivered('pagerduty');
  assert.equal(pages.length, 1, JSON.stringify(services.requests));
  const page = pages[0]?.body as { event_action: string; dedup_key: string; payload: { severity: string; class: string; summary: string } };
  assert.equal(page.event_action, 'trigger');
  assert.equal(page.payload.severity, 'critical');
  assert.equal(page.payload.class, 'key-in-use');
  assert.match(page.dedup_key, /\/key-in-use$/);
  assert.match(page.payload.summary, /Validator key in use on another machine/);

  const status = JSON.parse((await sim.cv(['status', '--output', 'json'])).stdout) as { twinCheck: { state: string; seenHeight: number; address: string } };
  assert.equal(status.twinCheck.state, 'key-in-use', 'status keeps the finding after run exits');
  assert.equal(status.twinCheck.address, address);
});

test('a twin seen while the node runs: the node stopped within 2 blocks of its first signature, exit 84, no restart', async (t) => {
  const sim = await setup(t, { CHAINVISOR_RESTART_ON_FAILURE: 'true', CHAINVISOR_RESTART_MAX: '5' });
  // The network's blocks every 2 s; the twin starts signing a few blocks after chainvisor's start.
  const net = await network(t, sim, { twin: { from: 8 }, blockTime: '2s' });
  await net.waitForHeight(1);
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc });
  const node = await run.nodeOf('genesis');
  assert.ok((await net.height()) < 8, 'the node started before the twin signed');
  assert.equal(eventsIn(run.output(), 'twin-checked')[0]?.msg?.startsWith('twin check clear'), true, run.output());

  assert.equal(await exited(run), 84, run.output());
  const output = run.output();
  assert.match(output, /chainvisor: code: CHAINVISOR_KEY_IN_USE/);
  assert.match(output, /; the node was stopped\n/);
  const [found] = eventsIn(output, 'key-in-use');
  const seen = found?.seenHeight as number;
  const networkHeight = found?.toHeight as number;
  assert.ok(seen >= 8, `the twin's signature at ${seen}`);
  assert.ok(networkHeight <= 8 + 2, `seen when the network was at ${networkHeight}: within 2 blocks of the twin's first signature (8)`);
  assert.equal(nodeStarts(output), 1, 'not restarted, whatever CHAINVISOR_RESTART_ON_FAILURE says');
  assert.throws(() => process.kill(node.pid, 0), { code: 'ESRCH' }, 'the node process is gone');
});

test('no twin: the validator is in the set, its key signs nowhere, the node starts; status, metrics and the text status say clear', async (t) => {
  const httpAddress = `127.0.0.1:${await unusedPort()}`;
  const sim = await setup(t, { CHAINVISOR_HTTP_ADDRESS: httpAddress });
  const net = await network(t, sim, { twin: { from: 1_000_000 } });
  await net.waitForHeight(2);
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc });
  await run.nodeOf('genesis');
  const [clear] = eventsIn(run.output(), 'twin-checked');
  assert.match(String(clear?.msg), /^twin check clear: no signature of this validator above height 0 in blocks 1–\d+ on /);
  // The status file and the metrics follow the event a moment later (the status writer, the endpoint's start).
  const status = await waitFor(async () => {
    const read = JSON.parse((await sim.cv(['status', '--output', 'json'])).stdout) as {
      twinCheck?: { state: string; rpc: string; localHeight: number } | null;
    };
    return read.twinCheck ? read.twinCheck : undefined;
  }, 'the status to show the twin check');
  assert.equal(status.state, 'clear');
  assert.equal(status.rpc, `${net.rpc}/`);
  assert.equal(status.localHeight, 0);
  assert.match((await sim.cv(['status'])).stdout, /^twin check +clear: heights 1–\d+ on http:\/\/127\.0\.0\.1:\d+\/ read/m);
  const metrics = await waitFor(async () => {
    const text = await fetch(`http://${httpAddress}/metrics`).then(
      (r) => r.text(),
      () => '',
    );
    return /^chainvisor_key_in_use /m.test(text) ? text : undefined;
  }, 'the metrics endpoint to show chainvisor_key_in_use');
  assert.match(metrics, /^chainvisor_key_in_use 0$/m);
  assert.equal(await run.stop(), 0);
});

test("the home's own recent signatures after an ordinary restart: the node starts (double_sign_check_height would refuse it)", async (t) => {
  const sim = await setup(t);
  // The validator signs its own blocks under chainvisor, then is stopped as in any restart.
  const first = sim.run();
  const own = await first.nodeOf('genesis');
  await waitFor(async () => (await heightOf(own).catch(() => 0)) >= 6, 'the validator signing');
  assert.equal(await first.stop(), 0);
  const signed = Number((JSON.parse(await fs.readFile(path.join(sim.home, 'data', 'priv_validator_state.json'), 'utf8')) as { height: string }).height);
  assert.ok(signed >= 6);
  assert.equal(eventsIn(first.output(), 'twin-checked').length, 0, 'a home that had never signed: no warning without the RPC (a debug line)');
  // Now a validator that has signed: without CHAINVISOR_NETWORK_RPC, one warning at each start, naming it.
  const unwatched = sim.run(quietValidator);
  await unwatched.nodeOf('genesis');
  const [warning] = eventsIn(unwatched.output(), 'twin-checked');
  assert.equal(warning?.level, 40);
  assert.equal(warning?.setting, 'CHAINVISOR_NETWORK_RPC');
  assert.match(String(warning?.msg), /CHAINVISOR_NETWORK_RPC is not set: chainvisor cannot see this validator's key signing on another machine/);
  assert.equal(await unwatched.stop(), 0);

  // The network carries those signatures up to that height, then the validator is absent (stopped).
  const net = await network(t, sim, { twin: { until: signed }, blockTime: '100ms' });
  await net.waitForHeight(signed + 10);
  const again = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc, CHAINVISOR_TWIN_BLOCKS: '1000' });
  await again.nodeOf('genesis');
  const [clear] = eventsIn(again.output(), 'twin-checked');
  assert.equal(clear?.seenHeight, signed, `its own signatures are in the window (up to ${signed}): CometBFT's look-back would panic on them`);
  assert.equal(clear?.localHeight, signed);
  assert.equal(clear?.fromHeight, 1);
  assert.equal(await again.stop(), 0);
});

test('a remote signer: the check is off, the node starts even with the key signing on the network', async (t) => {
  const sim = await setup(t);
  const toml = path.join(sim.home, 'config', 'config.toml');
  await fs.writeFile(toml, (await fs.readFile(toml, 'utf8')).replace(/^moniker = .*$/m, '$&\npriv_validator_laddr = "tcp://127.0.0.1:26659"'));
  const net = await network(t, sim, { twin: {} });
  await net.waitForHeight(3);
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc });
  await run.nodeOf('genesis');
  assert.match(String(eventsIn(run.output(), 'twin-checked')[0]?.msg), /twin check off: config\.toml names a remote signer \(tcp:\/\/127\.0\.0\.1:26659\)/);
  assert.equal(await run.stop(), 0);
});

test('CHAINVISOR_TWIN_CHECK=off: the node starts with a warning, even with the key signing on the network', async (t) => {
  const sim = await setup(t);
  const net = await network(t, sim, { twin: {} });
  await net.waitForHeight(3);
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc, CHAINVISOR_TWIN_CHECK: 'off' });
  await run.nodeOf('genesis');
  const [off] = eventsIn(run.output(), 'twin-checked');
  assert.equal(off?.level, 40, 'a warning');
  assert.match(String(off?.msg), /CHAINVISOR_TWIN_CHECK=off: the node is started without looking for its key on other machines/);
  assert.equal(await run.stop(), 0);
});

test('the network RPC down: require refuses to start (84, CHAINVISOR_TWIN_UNCHECKED); on starts with a warning', async (t) => {
  const sim = await setup(t);
  const down = `http://127.0.0.1:${await unusedPort()}`;
  const refused = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: down, CHAINVISOR_TWIN_CHECK: 'require', CHAINVISOR_TWIN_TIMEOUT: '1s' });
  assert.equal(await exited(refused), 84, refused.output());
  assert.match(refused.output(), /chainvisor: code: CHAINVISOR_TWIN_UNCHECKED/);
  assert.match(refused.output(), /the network RPCs could not be read within 1000 ms \(CHAINVISOR_TWIN_TIMEOUT\): .*ECONNREFUSED/);
  assert.equal(nodeStarts(refused.output()), 0);

  const started = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: down, CHAINVISOR_TWIN_TIMEOUT: '1s' });
  await started.nodeOf('genesis');
  const [unchecked] = eventsIn(started.output(), 'twin-unchecked');
  assert.equal(unchecked?.level, 40, started.output());
  assert.match(String(unchecked?.msg), /; starting the node without it$/);
  assert.equal(await started.stop(), 0);
});

test('an RPC of another chain id is a configuration mistake (78); so is a URL that does not parse, in run and config', async (t) => {
  const sim = await setup(t);
  const other = await network(t, sim, { chainId: 'other-9' });
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: other.rpc });
  assert.equal(await exited(run), 78, run.output());
  assert.match(run.output(), /chainvisor: code: CHAINVISOR_NETWORK_RPC_OTHER_CHAIN/);
  assert.match(run.output(), /serves chain "other-9", not this home's "sim-1"/);
  assert.equal(nodeStarts(run.output()), 0);

  for (const command of [['config'], ['run', 'start']]) {
    const bad = await sim.cv(command, { CHAINVISOR_NETWORK_RPC: 'https://rpc.example.com,ftp://user:pa55word@host/x' });
    assert.equal(bad.code, 78, bad.stderr);
    assert.match(bad.stderr, /CHAINVISOR_NETWORK_RPC=.*entry 2 \(ftp:\/\/\*\*\*@host\/…\) uses ftp:/);
    assert.doesNotMatch(bad.stderr + bad.stdout, /pa55word/);
  }
});

test('credentials in the RPC URL are sent, and never printed: config, logs, status, webhooks, alerts, errors', async (t) => {
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.close());
  const services = await startAlertServices();
  t.after(() => services.close());
  const sim = await setup(t, { CHAINVISOR_WEBHOOK_URL: receiver.url, ...services.env });
  const net = await network(t, sim, { twin: {} });
  await net.waitForHeight(3);
  // A provider's RPC: Basic credentials and an API key in the query string; it forwards to the network node.
  const seen: string[] = [];
  const upstream = new URL(net.rpc);
  const gate = http.createServer((req, res) => {
    seen.push(`${req.headers.authorization ?? ''} ${req.url ?? ''}`);
    if (req.headers.authorization !== `Basic ${Buffer.from('operator:s3cr3tpass').toString('base64')}`) return void res.writeHead(401).end();
    const forwardPath = (req.url ?? '/').replace(/^\/rpc/, '').replace('apikey=s3cr3tkey', '');
    const forward = http.get({ host: upstream.hostname, port: upstream.port, path: forwardPath, headers: { accept: 'application/json' } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
  });
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => gate.close(() => resolve())));
  const secretUrl = `http://operator:s3cr3tpass@127.0.0.1:${(gate.address() as AddressInfo).port}/rpc/?apikey=s3cr3tkey`;
  const env = { CHAINVISOR_NETWORK_RPC: secretUrl };

  const config = await sim.cv(['config'], env);
  assert.equal(config.code, 0, config.stderr);
  assert.match(config.stdout, /^CHAINVISOR_NETWORK_RPC +http:\/\/\*\*\*@127\.0\.0\.1:\d+\/… +\[env\]$/m);
  const run = sim.run([], env);
  assert.equal(await exited(run), 84, run.output());
  assert.match(run.output(), /seen through http:\/\/\*\*\*@127\.0\.0\.1:\d+\/…\)/);
  assert.ok(seen.length > 0 && seen.every((s) => s.startsWith('Basic ') && s.includes('/rpc/')), `the RPC was asked with the credentials: ${seen.join(', ')}`);
  const status = await sim.cv(['status', '--output', 'json']);
  const text = await sim.cv(['status']);
  const statusFile = await fs.readFile(path.join(sim.home, 'cosmovisor', '.chainvisor', 'status.json'), 'utf8');
  await waitFor(() => receiver.delivered().some((r) => r.body.event === 'key-in-use'), 'the key-in-use webhook');
  const webhook = receiver.delivered().find((r) => r.body.event === 'key-in-use')?.body as { twinCheck: { rpc: string } };
  assert.match(webhook.twinCheck.rpc, /^http:\/\/\*\*\*@127\.0\.0\.1:\d+\/…$/);
  const everything = [
    config.stdout,
    config.stderr,
    run.output(),
    status.stdout,
    text.stdout,
    statusFile,
    JSON.stringify(receiver.received),
    JSON.stringify(services.requests),
  ].join('\n');
  assert.doesNotMatch(everything, /s3cr3tpass|s3cr3tkey|operator:/);
});

test('CHAINVISOR_TWIN_WAIT: the first start waits that many new blocks; a twin starting meanwhile keeps the node from starting', async (t) => {
  const sim = await setup(t);
  const clean = await network(t, sim, { twin: { from: 1_000_000 } });
  await clean.waitForHeight(2);
  const waited = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: clean.rpc, CHAINVISOR_TWIN_WAIT: '3' });
  await waited.nodeOf('genesis');
  const lines = logLines(waited.output());
  const wait = lines.find((l) => l.event === 'twin-wait');
  const cleared = lines.filter((l) => l.event === 'twin-checked');
  assert.ok(wait !== undefined, waited.output());
  assert.equal(cleared.length, 2, 'the check at start, then the wait');
  assert.ok((cleared[1]?.toHeight as number) >= (wait.height as number) + 3, JSON.stringify(cleared[1]));
  assert.ok(lines.indexOf(cleared[1] as LogLine) < lines.findIndex((l) => l.event === 'node-started'), 'the node started after the wait');
  assert.equal(await waited.stop(), 0);

  // A twin that starts signing a few blocks after the start's check, as a failover node started at the same moment: seen during the wait.
  // From block 12 (12 s): room for chainvisor's start and its first check on a loaded machine.
  const racing = await network(t, sim, { twin: { from: 12 }, blockTime: '1s' });
  await racing.waitForHeight(1);
  assert.ok((await racing.height()) < 4);
  const refused = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: racing.rpc, CHAINVISOR_TWIN_WAIT: '20' });
  assert.equal(await exited(refused), 84, refused.output());
  assert.match(refused.output(), /chainvisor: code: CHAINVISOR_KEY_IN_USE/);
  const log = logLines(refused.output());
  const checked = log.findIndex((l) => l.event === 'twin-checked');
  const found = log.findIndex((l) => l.event === 'key-in-use');
  assert.ok(checked >= 0 && log[checked]?.msg?.startsWith('twin check clear'), 'clear at the start: the twin was not signing yet');
  assert.ok(found > log.findIndex((l) => l.event === 'twin-wait') && found > checked, 'seen during the wait');
  assert.ok((log[found]?.seenHeight as number) >= 12);
  assert.equal(nodeStarts(refused.output()), 0);
});

test('the metric: after key-in-use, run keeps its endpoint up until chainvisor_key_in_use 1 is scraped, then exits 84', async (t) => {
  const httpAddress = `127.0.0.1:${await unusedPort()}`;
  const sim = await setup(t, { CHAINVISOR_HTTP_ADDRESS: httpAddress });
  const net = await network(t, sim, { twin: {} });
  await net.waitForHeight(3);
  const run = sim.run([], { CHAINVISOR_NETWORK_RPC: net.rpc });
  await waitFor(() => /keeping the HTTP endpoint up until the key-in-use alert is scraped/.test(run.output()), 'the key-in-use, then the wait for a scrape');
  assert.equal(run.exited(), false, 'run waits for the scrape');
  const health = await fetch(`http://${httpAddress}/healthz`);
  assert.equal(health.status, 503);
  assert.match(((await health.json()) as { reason: string }).reason, /this validator's key signs on another machine/);
  assert.match(await (await fetch(`http://${httpAddress}/metrics`)).text(), /^chainvisor_key_in_use 1$/m);
  assert.equal(await exited(run), 84, run.output());
});

test('a network RPC that stops answering while the node runs is a warning, never a stop (require included)', async (t) => {
  const sim = await setup(t);
  const net = await network(t, sim, { twin: { from: 1_000_000 } });
  await net.waitForHeight(2);
  const run = sim.run(quietValidator, { CHAINVISOR_NETWORK_RPC: net.rpc, CHAINVISOR_TWIN_CHECK: 'require', CHAINVISOR_TWIN_TIMEOUT: '1s' });
  const node = await run.nodeOf('genesis');
  await net.node.stop();
  await waitFor(() => eventsIn(run.output(), 'twin-unchecked').length > 0, 'the warning');
  const [warning] = eventsIn(run.output(), 'twin-unchecked');
  assert.equal(warning?.level, 40);
  assert.match(String(warning?.msg), /does not answer .*; the node keeps running, unwatched until the network answers$/);
  assert.equal(run.exited(), false);
  process.kill(node.pid, 0); // the node is still there
  assert.equal((await heightOf(node)) > 0, true);
  assert.equal(await run.stop(), 0);
});
