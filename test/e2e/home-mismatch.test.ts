/**
 * A node that lives outside DAEMON_HOME (issue #43), on real processes: the simulated node writes under
 * its `--home`, or without one under `$HOME/.simd`, as an SDK node does, and holds its LevelDB store
 * (`data/application.db`) open. chainvisor sees the flag before the start and the open files after it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { readAddresses } from '@chainvisor/simd';
import { cli, waitFor } from '@chainvisor/simd/testing';

import { isProcessAlive } from '../../src/shared/proc/index.js';
import { chainvisorCommand } from '../support/chainvisor-command.js';
import { type ChainvisorSim, chainvisorSim } from '../support/chainvisor-sim.js';
import { stopRunAndNode } from '../support/leftover-node.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface LogLine {
  event?: string;
  msg?: string;
  [field: string]: unknown;
}

const logLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
const eventsIn = (output: string, event: string) => logLines(output).filter((l) => l.event === event);

/** A second simulated home, `withKey` false: no priv_validator_key.json (not a validator). */
async function otherHome(sim: ChainvisorSim, dir: string, withKey: boolean): Promise<string> {
  const init = await cli(sim.bin('genesis'), ['init', 'other', '--home', dir]);
  assert.equal(init.code, 0, init.stderr);
  if (!withKey) await fs.rm(path.join(dir, 'config', 'priv_validator_key.json'));
  return dir;
}

async function receiver(t: TestContext): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  t.after(() => r.close());
  return r;
}

/** `chainvisor run start <node flags>` with no `--home` for the node, and $HOME as given. */
function runWithoutHome(t: TestContext, sim: ChainvisorSim, env: Record<string, string>) {
  const proc = spawn(...chainvisorCommand(['run', 'start', ...sim.nodeFlags]), {
    env: { ...process.env, ...sim.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  let done = false;
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  void exit.then(() => (done = true));
  t.after(() => stopRunAndNode(proc, exit, () => done, path.join(env.HOME as string, '.simd')));
  return { output: () => output, exit, exited: () => done, stop: () => proc.kill('SIGTERM') };
}

const within = <T>(p: Promise<T>, ms: number, what: () => string): Promise<T> =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what())), ms).unref())]);

test('--home elsewhere, no local key: a warning naming both homes, home-mismatch to the webhook, status says so; the node runs', async (t) => {
  const sim = await chainvisorSim(t, ['genesis'], { CHAINVISOR_PLAN_POLL_INTERVAL: '0s' });
  const other = await otherHome(sim, path.join(sim.dir, 'other'), false);
  const hook = await receiver(t);
  const run = sim.run(['--home', other], { CHAINVISOR_WEBHOOK_URL: hook.url });
  await waitFor(async () => readAddresses(other).catch(() => undefined), `the node to listen in ${other}\n${run.output()}`, 60_000);
  const sent = await waitFor(async () => hook.delivered().find((r) => r.body.event === 'home-mismatch'), 'the home-mismatch webhook', 30_000);
  const mismatch = { nodeHome: await fs.realpath(other), daemonHome: await fs.realpath(sim.home), seen: 'flag', file: null, refused: false };
  assert.deepEqual(sent.body.homeMismatch, mismatch);

  const [line] = eventsIn(run.output(), 'home-mismatch');
  assert.equal(line?.level, 40, 'a warning');
  assert.match(line?.msg ?? '', new RegExp(`the node's home is ${mismatch.nodeHome} \\(seen by its --home flag\\), not DAEMON_HOME ${mismatch.daemonHome}`));
  assert.match(line?.msg ?? '', /upgrades are not applied .*the sign guard and the twin check read the wrong files, and backups copy the wrong data/);

  const json = await sim.cv(['status', '--output', 'json']);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual((JSON.parse(json.stdout) as { homeMismatch: unknown }).homeMismatch, mismatch);
  const text = await sim.cv(['status']);
  assert.match(text.stdout, new RegExp(`^home +MISMATCH: the node's home is ${mismatch.nodeHome}`, 'm'));
  assert.equal(run.exited(), false, 'a node with no local key keeps running');
});

test('--home elsewhere with a local validator key: exit 84, CHAINVISOR_HOME_MISMATCH, the node never started', async (t) => {
  const sim = await chainvisorSim(t, ['genesis'], { CHAINVISOR_PLAN_POLL_INTERVAL: '0s' });
  const other = await otherHome(sim, path.join(sim.dir, 'other'), true);
  const hook = await receiver(t);
  const run = sim.run([`--home=${other}`], { CHAINVISOR_WEBHOOK_URL: hook.url });
  assert.equal(await within(run.exit, 60_000, run.output), 84, run.output());
  const output = run.output();
  assert.match(output, /chainvisor: code: CHAINVISOR_HOME_MISMATCH/);
  assert.match(output, /and it signs there with a local validator key \(.*priv_validator_key\.json\).*the node was not started/);
  assert.match(output, new RegExp(`chainvisor: hint: pass --home ${await fs.realpath(sim.home)} to the node`));
  assert.equal(eventsIn(output, 'node-started').length, 0, 'no node was started');
  assert.equal(await readAddresses(other).catch(() => undefined), undefined, 'the node never listened');
  const sent = hook.delivered().find((r) => r.body.event === 'home-mismatch');
  assert.equal((sent?.body.homeMismatch as { refused?: boolean } | undefined)?.refused, true);
  const json = await sim.cv(['status', '--output', 'json']);
  assert.equal((JSON.parse(json.stdout) as { homeMismatch: { refused: boolean } | null }).homeMismatch?.refused, true, 'kept after run exits');
});

test("no --home with $HOME/.simd being DAEMON_HOME (cosmovisor's usual set-up), and --home $DAEMON_HOME: no event", async (t) => {
  const sim = await chainvisorSim(t, ['genesis'], { CHAINVISOR_PLAN_POLL_INTERVAL: '0s' });
  const user = path.join(sim.dir, 'user');
  await fs.mkdir(user);
  await fs.symlink(sim.home, path.join(user, '.simd'));
  const hook = await receiver(t);
  const checked = /the node's open files show its data folder in DAEMON_HOME/;

  const plain = runWithoutHome(t, sim, { HOME: user, CHAINVISOR_WEBHOOK_URL: hook.url });
  await waitFor(async () => checked.test(plain.output()) || undefined, `the open files read\n${plain.output()}`, 30_000);
  plain.stop();
  await within(plain.exit, 30_000, plain.output);
  assert.deepEqual(eventsIn(plain.output(), 'home-mismatch'), []);

  const flagged = sim.run(['--home', sim.home], { CHAINVISOR_WEBHOOK_URL: hook.url });
  await waitFor(async () => checked.test(flagged.output()) || undefined, `the open files read\n${flagged.output()}`, 30_000);
  await flagged.stop();
  assert.deepEqual(eventsIn(flagged.output(), 'home-mismatch'), []);
  assert.deepEqual(
    hook.received.filter((r) => r.body.event === 'home-mismatch'),
    [],
  );
});

test('no --home and $HOME/.simd another validator home: seen in its open files, the node stopped, exit 84', async (t) => {
  const sim = await chainvisorSim(t, ['genesis'], { CHAINVISOR_PLAN_POLL_INTERVAL: '0s' });
  const user = path.join(sim.dir, 'user');
  const other = await otherHome(sim, path.join(user, '.simd'), true);
  const hook = await receiver(t);
  const run = runWithoutHome(t, sim, { HOME: user, CHAINVISOR_WEBHOOK_URL: hook.url });
  assert.equal(await within(run.exit, 60_000, run.output), 84, run.output());
  const output = run.output();
  assert.equal(eventsIn(output, 'node-started').length, 1, 'the node had started: the flag did not tell');
  assert.match(output, /chainvisor: code: CHAINVISOR_HOME_MISMATCH/);
  assert.match(output, /the running node's files \(.*\/data\/application\.db\/[^)]+\) show its home is .*the node was stopped/);
  const [event] = eventsIn(output, 'home-mismatch');
  assert.equal(event?.seen, 'open-files');
  assert.equal(event?.nodeHome, await fs.realpath(other));
  const node = await readAddresses(other);
  assert.ok(node !== undefined, 'the node had listened');
  assert.equal(await isProcessAlive(node.pid), false, 'the node is stopped');
  const sent = await waitFor(async () => hook.delivered().find((r) => r.body.event === 'home-mismatch'), 'the webhook', 10_000);
  assert.equal((sent.body.homeMismatch as { seen: string }).seen, 'open-files');
});
