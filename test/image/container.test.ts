/**
 * The container image (Dockerfile, `npm run image`) on a real Docker engine, started with
 * docs/container.md's command: chainvisor on tini supervises a fake node (test/support/image-home.ts)
 * that keeps its data as an SDK node does, in a bind-mounted home; applies an upgrade; stops within the
 * grace on `docker stop` with its status; leaves no zombie; works with a read-only root. Containers run
 * with `--network none`, but the one that downloads through a proxy on the host's loopback. Run by
 * `npm run test:image` (scripts/test-image.sh), which builds the image and passes CHAINVISOR_IMAGE and
 * CHAINVISOR_TEST_BUSYBOX; without them (plain `npm test`) every test is skipped with a loud line.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';

import { goodArchives } from '../../scripts/make-hostile-archives.js';
import { hostPlatform } from '../../src/download/index.js';
import { containerDocArgs } from '../support/documented-command.js';
import { withChecksum } from '../support/download-kit.js';
import { startFaultServer } from '../support/fault-server.js';
import { BUSYBOX, docker, dockerOk, haltNode, HOME, IMAGE_UID, makeHome as makeImageHome, TOOLS, userArgs } from '../support/image-home.js';
import { startProxyServer } from '../support/proxy-server.js';
import { testCa } from '../support/tls.js';

const image = process.env.CHAINVISOR_IMAGE ?? '';
const busybox = process.env.CHAINVISOR_TEST_BUSYBOX ?? '';
const skip = image === '' || busybox === '' ? 'container image tests run with `npm run test:image` (CHAINVISOR_IMAGE is not set)' : false;
if (skip) {
  process.stderr.write(`\n!!! CONTAINER IMAGE TESTS SKIPPED: ${skip}\n\n`);
}

/** chainvisor's arguments as docs/container.md gives them (`run start --home …`), and the node's part. */
const DOCUMENTED = containerDocArgs();
const NODE_ARGS = DOCUMENTED.slice(1).join(' ');
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const makeHome = (): Promise<string> => makeImageHome(busybox);

let counter = 0;
const created: string[] = [];
const homes: string[] = [];

interface StartOptions {
  env?: Record<string, string>;
  extra?: string[];
  args?: string[];
}

/** `chainvisor init` in a throwaway container (as the Kubernetes example's init container), then `run`. */
async function start(home: string, options: StartOptions = {}): Promise<string> {
  const name = `chainvisor-test-${process.pid}-${++counter}`;
  const env = { DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true', ...options.env };
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const common = ['--network', 'none', '--label', 'chainvisor-test=1', '-v', `${home}:${HOME}`, ...userArgs(), ...envArgs, ...(options.extra ?? [])];
  await dockerOk(['run', '--rm', ...common, image, 'init', `${TOOLS}/genesis-simd`]);
  created.push(name);
  await dockerOk(['run', '-d', '--name', name, ...common, image, ...(options.args ?? DOCUMENTED)]);
  return name;
}

async function journal(home: string): Promise<string> {
  return fs.readFile(path.join(home, 'journal'), 'utf8').catch(() => '');
}

async function logs(name: string): Promise<string> {
  const run = await docker(['logs', name]);
  return `${run.stdout}${run.stderr}`;
}

/** Waits until the journal matches; fails with the journal and chainvisor's log. */
async function waitJournal(home: string, name: string, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await journal(home);
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) {
      assert.fail(`journal never matched ${pattern}\njournal:\n${text}\nchainvisor's log:\n${await logs(name)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs busybox inside the container (the image has no shell of its own). */
async function inContainer(name: string, ...args: string[]): Promise<string> {
  return dockerOk(['exec', name, BUSYBOX, ...args]);
}

/** pid → one-letter state, read from /proc inside the container. */
async function processStates(name: string): Promise<Map<number, { state: string; comm: string }>> {
  const text = await inContainer(name, 'sh', '-c', `for f in /proc/[0-9]*/stat; do ${BUSYBOX} cat "$f" 2>/dev/null; echo; done`);
  const states = new Map<number, { state: string; comm: string }>();
  for (const line of text.split('\n')) {
    const m = /^(\d+) \((.*)\) (\S)/.exec(line);
    if (m) states.set(Number(m[1]), { comm: m[2] as string, state: m[3] as string });
  }
  return states;
}

async function inspect(name: string, format: string): Promise<string> {
  return (await dockerOk(['inspect', '--format', format, name])).trim();
}

describe('container image', { skip, concurrency: false }, () => {
  before(async () => {
    const info = await docker(['image', 'inspect', image]);
    assert.equal(info.code, 0, `image ${image} not found: ${info.stderr}`);
  });

  afterEach(async () => {
    for (const name of created.splice(0)) await docker(['rm', '-f', name]);
  });

  after(async () => {
    for (const home of homes) await fs.rm(home, { recursive: true, force: true });
  });

  test('the image is chainvisor on tini, as a non-root user, with no shell', async () => {
    const config = JSON.parse(await dockerOk(['image', 'inspect', '--format', '{{json .Config}}', image])) as {
      Entrypoint: string[];
      Cmd: string[];
      User: string;
      Env: string[];
    };
    assert.deepEqual(config.Entrypoint, ['/usr/bin/tini', '--', '/usr/local/bin/chainvisor']);
    assert.deepEqual(config.Cmd, DOCUMENTED, "the image's CMD is docs/container.md's command");
    assert.equal(config.User, `${IMAGE_UID}:${IMAGE_UID}`);
    assert.ok(config.Env.includes(`DAEMON_HOME=${HOME}`));
    const version = await dockerOk(['run', '--rm', '--network', 'none', image, '--version']);
    assert.match(version, /^chainvisor version: \d+\.\d+\.\d+/);
    const sh = await docker(['run', '--rm', '--network', 'none', '--entrypoint', '/bin/sh', image, '-c', 'true']);
    assert.notEqual(sh.code, 0, 'the image has no /bin/sh');
  });

  test('supervises a node whose home is a volume, upgrades it, and stops it on docker stop with its status', async () => {
    const home = await makeHome();
    homes.push(home);
    const name = await start(home, { env: { CHAINVISOR_HTTP_ADDRESS: '0.0.0.0:9102', DAEMON_SHUTDOWN_GRACE: '10s' } });

    // 1. The node runs under chainvisor, with its arguments, its home at DAEMON_HOME, as the image's user; tini is PID 1.
    const first = await waitJournal(home, name, new RegExp(`genesis start pid=\\d+ uid=\\d+ home=${HOME} args=${escape(NODE_ARGS)}$`, 'm'));
    if (process.getuid?.() === 0) assert.match(first, new RegExp(`uid=${IMAGE_UID} `));
    const states = await processStates(name);
    assert.equal(states.get(1)?.comm, 'tini', 'PID 1 is tini');
    // chainvisor (its main thread is named node-MainThread): the child of PID 1, as the image's user.
    const supervisor = await inContainer(
      name,
      'sh',
      '-c',
      `for d in /proc/[0-9]*; do ${BUSYBOX} grep -q '^PPid:\t1$' $d/status && ${BUSYBOX} tr '\\0' ' ' < $d/cmdline && ${BUSYBOX} grep '^Uid:' $d/status; done; true`,
    );
    assert.match(supervisor, new RegExp(`^/usr/local/bin/chainvisor ${escape(DOCUMENTED.join(' '))} Uid:\t(\\d+)`), supervisor);
    if (process.getuid?.() === 0) assert.match(supervisor, new RegExp(`Uid:\\t${IMAGE_UID}\\t`));
    assert.equal((await fs.readlink(path.join(home, 'cosmovisor/current'))).replace(/\/$/, ''), 'genesis');
    // /healthz (what the Kubernetes readiness probe reads) says ok while the node runs.
    let health = '';
    for (let i = 0; i < 50 && !health.includes('"ok"'); i++) {
      health = (await docker(['exec', name, BUSYBOX, 'wget', '-q', '-O', '-', 'http://127.0.0.1:9102/healthz'])).stdout;
      if (!health.includes('"ok"')) await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(health, /"status":"ok"/);

    // 2. An upgrade inside the container: the node halts and writes the plan in its home, v2 starts, current moves.
    await haltNode(home, 'v2', 20);
    await waitJournal(home, name, new RegExp(`v2 start pid=\\d+ .*home=${HOME} args=${escape(NODE_ARGS)}$`, 'm'));
    assert.match(await journal(home), new RegExp(`genesis halted home=${HOME}$`, 'm'));
    // The node's data is chainvisor's: its signing state in $DAEMON_HOME/data, nothing under $HOME/.simd.
    await fs.access(path.join(home, 'data/priv_validator_state.json'));
    await assert.rejects(fs.access(path.join(home, '.simd')), { code: 'ENOENT' });
    assert.equal((await fs.readlink(path.join(home, 'cosmovisor/current'))).replace(/\/$/, ''), 'upgrades/v2');
    // `docker exec <container> chainvisor status` works (chainvisor is on the image's PATH).
    const status = JSON.parse(await dockerOk(['exec', name, 'chainvisor', 'status', '--output', 'json'])) as { current: { name: string } };
    assert.equal(status.current.name, 'v2');

    // 3. docker stop: SIGTERM reaches the node through tini and chainvisor; the node's status (42) is
    // the container's, well before docker's own SIGKILL (-t 30).
    const t0 = Date.now();
    await dockerOk(['stop', '-t', '30', name], 60_000);
    const elapsed = Date.now() - t0;
    const text = await journal(home);
    assert.match(text, /v2 got TERM/);
    assert.equal(await inspect(name, '{{.State.ExitCode}}'), '42', `exit code; log:\n${await logs(name)}`);
    assert.ok(elapsed < 15_000, `stopped in ${elapsed} ms`);
  });

  test('a node that ignores SIGTERM is killed by chainvisor after DAEMON_SHUTDOWN_GRACE, not by docker', async () => {
    const home = await makeHome();
    homes.push(home);
    await fs.writeFile(path.join(home, 'ignore-term'), '');
    const name = await start(home, { env: { DAEMON_SHUTDOWN_GRACE: '2s' } });
    await waitJournal(home, name, /genesis start/);
    const t0 = Date.now();
    await dockerOk(['stop', '-t', '30', name], 60_000);
    const elapsed = Date.now() - t0;
    assert.match(await journal(home), /genesis got TERM \(ignored\)/);
    // 128 + SIGKILL: chainvisor's status for a node it had to kill; docker's own kill would come at 30 s.
    assert.equal(await inspect(name, '{{.State.ExitCode}}'), '137', `exit code; log:\n${await logs(name)}`);
    assert.ok(elapsed >= 1_900 && elapsed < 15_000, `stopped in ${elapsed} ms (grace 2 s, docker's 30 s)`);
    assert.match(await logs(name), /DAEMON_SHUTDOWN_GRACE/);
  });

  test('no zombie is left when the node leaves children behind (tini reaps them)', async () => {
    const home = await makeHome();
    homes.push(home);
    await fs.writeFile(path.join(home, 'orphans'), '');
    const name = await start(home);
    await waitJournal(home, name, /genesis left orphans/);
    await new Promise((r) => setTimeout(r, 1_500)); // the orphans (sleep 0.3) have exited by now
    const zombies = [...(await processStates(name))].filter(([, p]) => p.state === 'Z');
    assert.deepEqual(zombies, [], 'no process in state Z');
  });

  test('the zombie check sees zombies when nothing reaps them (chainvisor as PID 1, without tini)', async () => {
    const home = await makeHome();
    homes.push(home);
    await fs.writeFile(path.join(home, 'orphans'), '');
    const name = await start(home, { extra: ['--entrypoint', '/usr/local/bin/chainvisor'] });
    await waitJournal(home, name, /genesis left orphans/);
    await new Promise((r) => setTimeout(r, 1_500));
    const zombies = [...(await processStates(name))].filter(([, p]) => p.state === 'Z');
    assert.equal(zombies.length, 5, `the five orphans are zombies: ${JSON.stringify(zombies)}`);
  });

  test('works with a read-only root filesystem, only the home writable (no tmpfs)', async () => {
    const home = await makeHome();
    homes.push(home);
    const name = await start(home, { extra: ['--read-only'], env: { CHAINVISOR_HTTP_ADDRESS: '127.0.0.1:9102', UNSAFE_SKIP_BACKUP: 'false' } });
    await waitJournal(home, name, /genesis start/);
    const write = await docker(['exec', name, BUSYBOX, 'touch', '/tmp/x']);
    assert.notEqual(write.code, 0, 'the root filesystem is read-only');
    await haltNode(home, 'v2', 20);
    await waitJournal(home, name, /v2 start/);
    assert.equal((await fs.readlink(path.join(home, 'cosmovisor/current'))).replace(/\/$/, ''), 'upgrades/v2');
    const backups = (await fs.readdir(home)).filter((f) => f.startsWith('data-backup-'));
    assert.equal(backups.length, 1, `a data backup in the home: ${backups.join(', ')}`);
    await dockerOk(['stop', '-t', '30', name], 60_000);
    assert.equal(await inspect(name, '{{.State.ExitCode}}'), '42');
    const log = await logs(name);
    assert.doesNotMatch(log, /EROFS|read-only file system/i, log);
  });

  test("downloads through the company proxy and trusts the CA in SSL_CERT_FILE, as on the host (the image's own store otherwise)", async () => {
    // The one test with a network: the host's, to reach the proxy and release server on its loopback.
    const release = await startFaultServer({ tls: true, name: 'releases.example.test' });
    const proxy = await startProxyServer({ hosts: { 'releases.example.test': '127.0.0.1' } });
    const certs = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-image-ca-'));
    homes.push(certs);
    try {
      const archive = goodArchives('simd').tarGz?.data as Buffer;
      release.route('/simd.tar.gz', { body: archive });
      await fs.chmod(certs, 0o755);
      await fs.writeFile(path.join(certs, 'corporate-ca.pem'), testCa, { mode: 0o644 });
      const info = JSON.stringify({ binaries: { [hostPlatform()]: withChecksum(release.url('/simd.tar.gz'), archive) } });
      const checkPlan = (env: string[]) =>
        docker([
          'run',
          '--rm',
          '--network',
          'host',
          '-v',
          `${certs}:/certs:ro`,
          '-e',
          'DAEMON_NAME=simd',
          '-e',
          `HTTPS_PROXY=${proxy.hostPort}`,
          ...env,
          image,
          'check-plan',
          '--skip-smoke-test',
          '--info',
          info,
        ]);
      const untrusted = await checkPlan([]);
      assert.equal(untrusted.code, 79, untrusted.stderr);
      assert.match(untrusted.stderr, /the TLS certificate of releases\.example\.test:\d+ does not verify/);
      assert.match(untrusted.stderr, /SSL_CERT_FILE/);
      assert.doesNotMatch(untrusted.stderr, /use-system-ca/);
      const trusted = await checkPlan(['-e', 'SSL_CERT_FILE=/certs/corporate-ca.pem']);
      assert.equal(trusted.code, 0, trusted.stderr);
      assert.match(trusted.stdout, /bin\/simd \(tar\.gz\)/);
      assert.ok(
        proxy.requests.some((r) => r.method === 'CONNECT'),
        'through the proxy',
      );
    } finally {
      await release.close();
      await proxy.close();
    }
  });
});
