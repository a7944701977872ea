/**
 * `chainvisor rehearse` on the simulated chain while `chainvisor run` supervises the same home (issue
 * #19): a good upgrade passes, a panicking handler fails (83) with its panic line, a slow handler is a
 * long migration, an old binary without in-place-testnet cannot rehearse (79). Throughout, the live
 * node keeps its process, its keys and its blocks, and the scratch is gone afterwards; SIGTERM and
 * SIGKILL mid-rehearsal leave nothing behind either (the latter once chainvisor starts again).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { upgradeInfoFor } from '@chainvisor/simd';
import { cli, proposeUpgrade, waitFor, waitForProposal } from '@chainvisor/simd/testing';

import { isProcessAliveNow } from '../../src/shared/proc/index.js';
import { chainvisorCommand } from '../support/chainvisor-command.js';
import { type ChainvisorSim, chainvisorSim, heightOf } from '../support/chainvisor-sim.js';
import { tryMountTmpfs } from '../support/tmpfs.js';

const variants = {
  'genesis-old': { from: 'genesis', inPlaceTestnet: false },
  'v2-panics': { from: 'v2', handlerPanic: 'always' },
  'v2-slow': { from: 'v2', handlerDelay: '4s' },
};
/** The scratch node's blocks: fast, so that the 3 blocks after the upgrade take a fraction of a second. */
const fast = ['--', '--block-time', '100ms'];

async function setUp(t: TestContext, v2 = 'v2', genesis = 'genesis'): Promise<ChainvisorSim> {
  const sim = await chainvisorSim(t, ['genesis', 'v2'], {}, ['--voting-period', '300ms', '--deposit-period', '300ms', '--auto-vote'], variants);
  if (genesis !== 'genesis') await fs.copyFile(sim.bin(genesis), path.join(sim.home, 'cosmovisor', 'genesis', 'bin', 'simd'));
  const added = await sim.cv(['add-upgrade', 'v2', sim.bin(v2)]);
  assert.equal(added.code, 0, added.stderr);
  return sim;
}

const digest = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

/** What must not change in the live home: its keys and config, byte for byte. */
async function liveFacts(home: string): Promise<Record<string, string>> {
  const facts: Record<string, string> = {};
  for (const file of ['priv_validator_key.json', 'node_key.json', 'config.toml', 'genesis.json']) facts[file] = await digest(path.join(home, 'config', file));
  return facts;
}

/** The live validator's signing state (the simulated node keeps one, as CometBFT does): only the live node moves it, and only forward. */
const signedHeight = async (home: string): Promise<bigint> =>
  BigInt((JSON.parse(await fs.readFile(path.join(home, 'data', 'priv_validator_state.json'), 'utf8')) as { height: string }).height);

async function scratchLeft(home: string): Promise<string[]> {
  return (await fs.readdir(path.join(home, 'cosmovisor'))).filter((n) => n.startsWith('.chainvisor-rehearsal-'));
}

test('a good v2 passes while the live node keeps committing; its node, keys and config untouched, the scratch gone, status shows it', async (t) => {
  const sim = await setUp(t);
  const run = sim.run();
  const live = await run.nodeOf('genesis');
  const start = await heightOf(live);
  // A plan scheduled by governance (what `rehearse` takes when no name is given), far enough that the live node
  // never reaches it while the test runs, however slow the machine.
  const { id } = await proposeUpgrade(sim.bin('genesis'), sim.home, {
    name: 'v2',
    height: start + 4000,
    info: upgradeInfoFor(sim.built.versions.v2!, 'http://127.0.0.1:9/'),
  });
  await waitForProposal(sim.bin('genesis'), sim.home, id, /PASSED/);
  const before = await liveFacts(sim.home);
  const signedBefore = await signedHeight(sim.home);
  const atRehearsal = await heightOf(live);

  const r = await sim.cv(['rehearse', '--output', 'json', ...fast]);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.equal(report.upgrade, 'v2');
  assert.equal(report.result, 'passed');
  assert.equal(report.reason, null);
  assert.equal(typeof report.migration_seconds, 'number');
  assert.ok((report.blocks_after_upgrade as number) >= 3, r.stdout);
  assert.ok((report.peak_rss_bytes as number) > 0);
  assert.equal(typeof report.scratch_bytes, 'number');
  for (const phase of ['copy', 'halt', 'migration', 'blocks']) assert.equal(typeof (report.phases as Record<string, unknown>)[phase], 'number', phase);
  assert.deepEqual(report.log_tail, []);

  // The live node: the same process, still committing, on its own chain; keys and config byte-identical.
  const after = await run.nodeOf('genesis');
  assert.equal(after.pid, live.pid);
  await waitFor(async () => (await heightOf(after)) > atRehearsal + 5, 'the live node to keep committing');
  assert.deepEqual(await liveFacts(sim.home), before);
  assert.ok((await signedHeight(sim.home)) >= signedBefore, "the live signing state only went forward: the scratch's never reached it");
  assert.ok(!run.exited());
  assert.deepEqual(await scratchLeft(sim.home), []);
  const status = await sim.cv(['status', '--output', 'json']);
  const doc = JSON.parse(status.stdout) as { rehearsals: { upgrade: string; result: string; migration_seconds: number }[]; lastRehearsal: { upgrade: string } };
  assert.equal(doc.lastRehearsal.upgrade, 'v2');
  assert.equal(doc.rehearsals[0]?.upgrade, 'v2');
  assert.equal(doc.rehearsals[0]?.result, 'passed');
  assert.equal(doc.rehearsals[0]?.migration_seconds, report.migration_seconds);
  const text = await sim.cv(['status']);
  assert.match(text.stdout, /rehearsal.*v2.*passed/i);
  await run.stop();
});

test('a v2 whose handler panics: 83, failed, the panic line in the reason and the log tail', async (t) => {
  const sim = await setUp(t, 'v2-panics');
  const run = sim.run();
  const live = await run.nodeOf('genesis');
  await waitFor(async () => (await heightOf(live)) > 3, 'a few blocks');
  const r = await sim.cv(['rehearse', 'v2', '--output', 'json', ...fast]);
  assert.equal(r.code, 83, r.stderr);
  const report = JSON.parse(r.stdout) as { result: string; reason: string; log_tail: string[]; migration_seconds: null };
  assert.equal(report.result, 'failed');
  assert.match(report.reason, /panic: upgrade handler "v2" of this build always panics/);
  assert.ok(
    report.log_tail.some((l) => l.startsWith('panic: ')),
    report.log_tail.join('\n'),
  );
  assert.ok(report.log_tail.length <= 40);
  assert.equal(report.migration_seconds, null);
  assert.equal((await run.nodeOf('genesis')).pid, live.pid);
  assert.deepEqual(await scratchLeft(sim.home), []);
  const text = await sim.cv(['rehearse', 'v2', ...fast]);
  assert.equal(text.code, 83, `stdout:\n${text.stdout}\nstderr:\n${text.stderr}`);
  assert.match(text.stdout, /FAILED/);
  assert.match(text.stdout, /panic: /);
  await run.stop();
});

test('a handler that works 4 s longer is a migration of at least 4 s', async (t) => {
  const sim = await setUp(t, 'v2-slow');
  const run = sim.run();
  const live = await run.nodeOf('genesis');
  await waitFor(async () => (await heightOf(live)) > 3, 'a few blocks');
  const r = await sim.cv(['rehearse', 'v2', '--output', 'json', ...fast]);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { migration_seconds: number; blocks_after_upgrade: number };
  assert.ok(report.migration_seconds >= 4, String(report.migration_seconds));
  assert.ok(report.blocks_after_upgrade >= 3);
  await run.stop();
});

test("a v2 whose pre-upgrade fails: 83, failed, pre-upgrade's own output as the log tail; current on the copy only", async (t) => {
  const sim = await setUp(t);
  // v2 as released, but its pre-upgrade refuses (exit 30: "failed, do not retry").
  const wrapper = path.join(sim.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd');
  await fs.writeFile(
    wrapper,
    `#!/bin/sh\nif [ "$1" = pre-upgrade ]; then echo "migration check: store newmod is missing" >&2; exit 30; fi\nexec '${sim.bin('v2')}' "$@"\n`,
    { mode: 0o755 },
  );
  const run = sim.run();
  await waitFor(async () => (await heightOf(await run.nodeOf('genesis'))) > 3, 'a few blocks');
  assert.equal(await run.stop(), 0);
  const r = await sim.cv(['rehearse', 'v2', '--output', 'json', ...fast]);
  assert.equal(r.code, 83, r.stderr);
  const report = JSON.parse(r.stdout) as { result: string; reason: string; log_tail: string[] };
  assert.equal(report.result, 'failed');
  assert.match(report.reason, /pre-upgrade/, report.reason);
  assert.deepEqual(report.log_tail, ['migration check: store newmod is missing'], report.reason);
  assert.equal(await fs.readlink(path.join(sim.home, 'cosmovisor', 'current')), 'genesis', 'the live current is untouched');
  assert.deepEqual(await scratchLeft(sim.home), []);
});

test('an old binary that stays up at its halt, as a real node does after its CONSENSUS FAILURE, is stopped by the plan it wrote', async (t) => {
  const sim = await setUp(t);
  const run = sim.run();
  await waitFor(async () => (await heightOf(await run.nodeOf('genesis'))) > 3, 'a few blocks');
  assert.equal(await run.stop(), 0);
  // Within the default 30 m timeout only if the halt is seen in the file, not waited for as an exit.
  const r = await sim.cv(['rehearse', 'v2', '--output', 'json', '--timeout', '60s', ...fast, '--halt-mode', 'stay']);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { result: string; blocks_after_upgrade: number; phases: { halt: number } };
  assert.equal(report.result, 'passed');
  assert.ok(report.blocks_after_upgrade >= 3);
  assert.ok(report.phases.halt < 30, `halt phase ${report.phases.halt} s`);
  assert.deepEqual(await scratchLeft(sim.home), []);
});

test('a new binary that stays up after a CONSENSUS FAILURE, as CometBFT keeps a node whose handler failed: 83 with that line', async (t) => {
  const sim = await setUp(t);
  await fs.writeFile(
    path.join(sim.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd'),
    `#!/bin/sh\ncase "$1" in\n  pre-upgrade) exit 1 ;;\n  start) echo 'ERR CONSENSUS FAILURE!!! err="upgrade handler: store newmod missing" module=consensus' >&2; exec sleep 600 ;;\nesac\nexec '${sim.bin('v2')}' "$@"\n`,
    { mode: 0o755 },
  );
  const run = sim.run();
  await waitFor(async () => (await heightOf(await run.nodeOf('genesis'))) > 3, 'a few blocks');
  assert.equal(await run.stop(), 0);
  const r = await sim.cv(['rehearse', 'v2', '--output', 'json', '--timeout', '120s', ...fast]);
  assert.equal(r.code, 83, r.stderr);
  const report = JSON.parse(r.stdout) as { result: string; reason: string; log_tail: string[] };
  assert.equal(report.result, 'failed');
  assert.match(report.reason, /stays up without making blocks: ERR CONSENSUS FAILURE!!! err="upgrade handler: store newmod missing"/);
  assert.ok(
    report.log_tail.some((l) => l.includes('CONSENSUS FAILURE')),
    report.log_tail.join('\n'),
  );
  assert.deepEqual(await scratchLeft(sim.home), []);
});

test("the binary's own <NAME>_* variables never reach the scratch (they would undo its config); pre-upgrade is told the scratch home", async (t) => {
  const sim = await setUp(t);
  const run = sim.run();
  await waitFor(async () => (await heightOf(await run.nodeOf('genesis'))) > 3, 'a few blocks');
  assert.equal(await run.stop(), 0);
  const log = path.join(sim.dir, 'pre-upgrade-args');
  const wrapper = path.join(sim.home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd');
  await fs.writeFile(wrapper, `#!/bin/sh\n[ "$1" = pre-upgrade ] && echo "$@" > '${log}'\nexec '${sim.bin('v2')}' "$@"\n`, { mode: 0o755 });
  // simd reads SIMD_PRE_UPGRADE_EXIT as an SDK binary reads SIMD_P2P_PERSISTENT_PEERS: seen, it fails pre-upgrade.
  const r = await sim.cv(['rehearse', 'v2', '--output', 'json', ...fast], { SIMD_PRE_UPGRADE_EXIT: '30' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(await fs.readFile(log, 'utf8'), /^pre-upgrade --home \/.*\.chainvisor-rehearsal-[^ ]*\n$/);
});

test('an old binary without in-place-testnet: 79, naming it and the SDK command that adds it; nothing written', async (t) => {
  const sim = await setUp(t, 'v2', 'genesis-old');
  const run = sim.run();
  const live = await run.nodeOf('genesis-old');
  await waitFor(async () => (await heightOf(live)) > 2, 'a few blocks');
  const r = await sim.cv(['rehearse', 'v2', '--output', 'json']);
  assert.equal(r.code, 79, r.stderr);
  assert.match(r.stderr, /has no in-place-testnet command/);
  assert.match(r.stderr, /server\.AddTestnetCreatorCommand/);
  assert.match(r.stderr, /v0\.50\.4/);
  assert.match(r.stderr, /chainvisor: code: CHAINVISOR_REHEARSAL_UNAVAILABLE/);
  assert.equal((JSON.parse(r.stdout) as { result: string }).result, 'not-rehearsed');
  assert.deepEqual(await scratchLeft(sim.home), []);
  await assert.rejects(fs.access(path.join(sim.home, 'cosmovisor', '.chainvisor', 'rehearsals.json')));
  await run.stop();
});

test('without chainvisor run; --keep; an upgrade not installed is 79; not enough disk is 79; usage errors are 64', async (t) => {
  const sim = await setUp(t);
  // The node must have blocks: run it a moment under chainvisor, then rehearse with nothing running.
  const run = sim.run();
  await waitFor(async () => (await heightOf(await run.nodeOf('genesis'))) > 3, 'a few blocks');
  assert.equal(await run.stop(), 0);
  // No node to ask and nothing queued: the one staged upgrade, said in the log.
  const r = await sim.cv(['rehearse', '--blocks', '2', ...fast]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /rehearsal of upgrade "v2": PASSED/);
  assert.match(r.stderr, /did not answer .*rehearsing the one staged upgrade, \\"v2\\"/);
  // On a terminal (script(1) gives it one): a line per phase on stderr.
  if (
    await fs.access('/usr/bin/script').then(
      () => true,
      () => false,
    )
  ) {
    const [file, args] = chainvisorCommand(['rehearse', 'v2', ...fast]);
    const line = `exec ${[file, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')}`;
    const tty = await cli('/usr/bin/script', ['-qec', line, '/dev/null'], sim.env);
    assert.equal(tty.code, 0, tty.stdout);
    for (const said of [
      /rehearse: copying .* into .*\.chainvisor-rehearsal-/,
      /rehearse: halted for "v2" at height \d+/,
      /rehearse: block \d+ committed by the new binary: migration/,
      /PASSED/,
    ])
      assert.match(tty.stdout, said);
  } else t.diagnostic('no script(1) here: the terminal case was not run');
  const kept = await sim.cv(['rehearse', 'v2', '--keep', '--output', 'json', ...fast]);
  assert.equal(kept.code, 0, kept.stderr);
  const where = (JSON.parse(kept.stdout) as { kept: string }).kept;
  assert.deepEqual(await scratchLeft(sim.home), [path.basename(where)]);
  assert.ok((await fs.readFile(path.join(where, 'node.log'), 'utf8')).includes('in-place testnet'));
  await fs.rm(where, { recursive: true });
  const missing = await sim.cv(['rehearse', 'v3']);
  assert.equal(missing.code, 79);
  assert.match(missing.stderr, /the binary of upgrade "v3" is not installed/);
  // A rehearsal folder on a 32 MiB disk: refused before anything is written.
  const small = path.join(sim.dir, 'small-disk');
  await fs.mkdir(small);
  if (tryMountTmpfs(small, '32m')) {
    try {
      const full = await sim.cv(['rehearse', 'v2'], { CHAINVISOR_REHEARSAL_DIR: small });
      assert.equal(full.code, 79, full.stderr);
      assert.match(full.stderr, /not enough disk to rehearse in .*small-disk: .* need .* is available; nothing was written/);
      assert.match(full.stderr, /CHAINVISOR_REHEARSAL_NO_SPACE/);
      assert.deepEqual(await fs.readdir(small), []);
    } finally {
      execFileSync('umount', ['-l', small]);
    }
  } else t.diagnostic('no small tmpfs here (needs root): the disk case was not run');
  // A rehearsal folder inside data/ would copy itself: refused, nothing written there.
  const inData = path.join(sim.home, 'data', 'rehearsals');
  const looping = await sim.cv(['rehearse', 'v2'], { CHAINVISOR_REHEARSAL_DIR: inData });
  assert.equal(looping.code, 79, looping.stderr);
  assert.match(looping.stderr, /is inside .*data: the copy would copy itself/);
  await assert.rejects(fs.access(inData));
  for (const args of [['--blocks', '0'], ['--timeout', 'soon'], ['a', 'b'], ['--output', 'xml'], ['--nope']]) {
    const bad = await sim.cv(['rehearse', ...args]);
    assert.equal(bad.code, 64, `${args.join(' ')}: ${bad.stderr}`);
  }
});

/** Starts `chainvisor rehearse` in the background; resolves once its new binary runs on the scratch. */
function background(sim: ChainvisorSim, args: string[]) {
  const proc = spawn(...chainvisorCommand(['rehearse', ...args]), { env: { ...process.env, ...sim.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, exit, output: () => output };
}

async function scratchNodePid(home: string): Promise<number> {
  return waitFor(
    async () => {
      const [name] = await scratchLeft(home);
      if (name === undefined) return undefined;
      const text = await fs.readFile(path.join(home, 'cosmovisor', name, 'node.json'), 'utf8').catch(() => undefined);
      const log = await fs.readFile(path.join(home, 'cosmovisor', name, 'node.log'), 'utf8').catch(() => '');
      // The new binary is at work on its handler (v2-slow): the scratch is complete.
      return text !== undefined && /works for/.test(log) ? (JSON.parse(text) as { pid: number }).pid : undefined;
    },
    'the new binary to run on the scratch',
    30_000,
  );
}

test('SIGTERM mid-rehearsal stops the scratch node and removes the scratch', async (t) => {
  const sim = await setUp(t, 'v2-slow');
  const run = sim.run();
  await waitFor(async () => (await heightOf(await run.nodeOf('genesis'))) > 3, 'a few blocks');
  const rehearsal = background(sim, ['v2', ...fast]);
  const pid = await scratchNodePid(sim.home);
  // Meanwhile: the scratch node listens on loopback only, on ports of its own, and runs the rehearsal chain.
  const [scratch] = await scratchLeft(sim.home);
  const addresses = JSON.parse(await fs.readFile(path.join(sim.home, 'cosmovisor', scratch!, 'config', 'addresses.json'), 'utf8')) as Record<string, string>;
  for (const key of ['rpc', 'grpc']) assert.match(addresses[key]!, /^(tcp:\/\/)?127\.0\.0\.1:\d+$/, key);
  // REST is off in the live home's app.toml (as `simd init` writes it, like the SDK): off in the scratch too.
  assert.match(addresses.api!, /^(tcp:\/\/127\.0\.0\.1:\d+)?$/, 'api');
  assert.notEqual(addresses.grpc, sim.env.DAEMON_GRPC_ADDRESS);
  const genesis = JSON.parse(await fs.readFile(path.join(sim.home, 'cosmovisor', scratch!, 'config', 'genesis.json'), 'utf8')) as { chain_id: string };
  assert.equal(genesis.chain_id, 'sim-1-rehearsal');
  rehearsal.proc.kill('SIGTERM');
  assert.equal(await rehearsal.exit, 79, rehearsal.output());
  assert.match(rehearsal.output(), /CHAINVISOR_REHEARSAL_INTERRUPTED/);
  assert.ok(!isProcessAliveNow(pid), 'the scratch node is stopped');
  assert.deepEqual(await scratchLeft(sim.home), []);
  await run.stop();
});

test('SIGKILL mid-rehearsal: the next start of chainvisor stops the scratch node and removes the scratch', async (t) => {
  const sim = await setUp(t, 'v2-slow');
  const first = sim.run();
  await waitFor(async () => (await heightOf(await first.nodeOf('genesis'))) > 3, 'a few blocks');
  const rehearsal = background(sim, ['v2', ...fast]);
  const pid = await scratchNodePid(sim.home);
  rehearsal.proc.kill('SIGKILL');
  await rehearsal.exit;
  assert.equal((await scratchLeft(sim.home)).length, 1);
  assert.equal(await first.stop(), 0);
  const second = sim.run();
  await second.nodeOf('genesis');
  await waitFor(async () => (await scratchLeft(sim.home)).length === 0 && !isProcessAliveNow(pid), `the scratch removed\n${second.output()}`);
  assert.match(second.output(), /removed the scratch home of an interrupted rehearsal/);
  await second.stop();
});
