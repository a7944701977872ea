/**
 * Files that are not files, through the `chainvisor` command (and, in CI, the release executable):
 * a FIFO, a link to /dev/zero, a socket, a link loop where chainvisor reads a certificate bundle, a
 * certificate folder, a binary to install. Each is refused by name without being waited on or read
 * for ever, and the command goes on with what it can read; a stop signal ends it whatever it reads.
 * And `version` on a node whose own `version` never answers: chainvisor answers after its limit.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { versionTimeoutMs } from '../../src/cli/commands/version.js';
import { isProcessAlive } from '../../src/shared/proc/index.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';
import { endsWithin, isRoot, makeNotFile, type NotFileKind, notFileReason } from '../support/not-files.js';
import { testCa } from '../support/tls.js';

/** Many times what any of these commands takes: a command still running then is one that hangs. */
const hangs = 30_000;

describe('files that are not files', () => {
  let t: TestHome;
  const closers: Array<() => Promise<void>> = [];
  beforeEach(async () => {
    t = await makeHome();
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', version: 'v1.0.0' })]);
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await t.cleanup();
  });

  async function notFile(file: string, kind: NotFileKind): Promise<string> {
    closers.push(await makeNotFile(file, kind));
    return file;
  }

  /** `chainvisor config` with `env`, which must end by itself. */
  async function config(env: Record<string, string>) {
    const run = t.spawn(['config'], env);
    const ending = await endsWithin(run, hangs);
    assert.ok(ending.ended, `chainvisor config still ran after ${hangs} ms: it hangs on what it reads`);
    const r = await run;
    assert.equal(r.exitCode, 0, r.all);
    return r.stdout;
  }

  for (const kind of ['fifo', 'zero', 'socket', 'loop', 'folder'] as const) {
    test(`config: SSL_CERT_FILE is ${kind === 'zero' ? 'a link to /dev/zero' : `a ${kind}`}: not read, and said so`, async () => {
      const file = await notFile(path.join(t.root, 'ca.pem'), kind);
      const out = await config({ SSL_CERT_FILE: file });
      assert.match(out, new RegExp(`not read\\s+SSL_CERT_FILE ${file}: ${notFileReason[kind].source}`));
      assert.match(out, /trusted CAs\s+\d+: Node's bundled roots/);
    });
  }

  test('config: SSL_CERT_FILE=/dev/zero itself: refused as a device, unopened', async () => {
    const out = await config({ SSL_CERT_FILE: '/dev/zero' });
    assert.match(out, /not read\s+SSL_CERT_FILE \/dev\/zero: it is a character device, not a regular file/);
  });

  test('config: SSL_CERT_DIR holding the CA beside a link to /dev/zero, a FIFO, a socket, a link loop and a folder: the CA read, the others named', async () => {
    const dir = path.join(t.root, 'certs');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'corporate.pem'), testCa);
    const kinds = { 'zero.pem': 'zero', 'fifo.pem': 'fifo', 'socket.pem': 'socket', 'loop.pem': 'loop', java: 'folder' } as const;
    for (const [name, kind] of Object.entries(kinds)) await notFile(path.join(dir, name), kind);
    const out = await config({ SSL_CERT_DIR: dir });
    assert.match(out, new RegExp(`SSL_CERT_DIR ${dir}/ \\(\\d+ new\\)`));
    for (const [name, kind] of Object.entries(kinds)) {
      if (kind === 'folder') assert.doesNotMatch(out, new RegExp(`not read\\s+${path.join(dir, name)}:`), 'a sub-folder is skipped quietly, as Go does');
      else assert.match(out, new RegExp(`not read\\s+${path.join(dir, name)}: ${notFileReason[kind].source}`), name);
    }
  });

  test(
    'config: an SSL_CERT_DIR folder that cannot be listed and a bundle that cannot be read: named, the rest read',
    { skip: isRoot && 'root reads whatever the permission bits say' },
    async () => {
      const locked = path.join(t.root, 'locked');
      await fs.mkdir(locked, { mode: 0o000 });
      const bundle = path.join(t.root, 'ca.pem');
      await fs.writeFile(bundle, testCa, { mode: 0o000 });
      const out = await config({ SSL_CERT_FILE: bundle, SSL_CERT_DIR: locked });
      assert.match(out, new RegExp(`not read\\s+SSL_CERT_FILE ${bundle}: permission denied \\(EACCES\\)`));
      assert.match(out, new RegExp(`not read\\s+SSL_CERT_DIR ${locked}/: cannot be listed \\(EACCES\\)`));
    },
  );

  test('config: SSL_CERT_FILE a sparse file of 64 GiB: refused by its size, unread', async () => {
    const file = path.join(t.root, 'huge.pem');
    const handle = await fs.open(file, 'w');
    await handle.truncate(64 * 1024 ** 3);
    await handle.close();
    const out = await config({ SSL_CERT_FILE: file });
    assert.match(out, new RegExp(`not read\\s+SSL_CERT_FILE ${file}: it is too large \\(68719476736 bytes, over the limit of 16777216 bytes\\)`));
  });

  test('config --config naming a FIFO: refused as a settings problem (78), not waited on', async () => {
    const file = await notFile(path.join(t.root, 'chainvisor.json'), 'fifo');
    const run = t.spawn(['--config', file, 'config']);
    const ending = await endsWithin(run, hangs);
    assert.ok(ending.ended, `chainvisor config still ran after ${hangs} ms`);
    const r = await run;
    assert.equal(r.exitCode, 78, r.all);
    assert.match(r.stderr, /config file=".*": cannot be read: it is a FIFO, not a regular file/);
  });

  test('config with SSL_CERT_FILE a FIFO: a SIGTERM ends it', async () => {
    const file = await notFile(path.join(t.root, 'ca.pem'), 'fifo');
    const run = t.spawn(['config'], { SSL_CERT_FILE: file });
    await sleep(300);
    // Straight to it (execa's kill adds a SIGKILL 5 s later). The FIFO is refused unopened, so a fast
    // build may already have ended by itself: that, too, is a command that does not hang on it.
    try {
      process.kill(run.pid as number, 'SIGTERM');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
    const ending = await endsWithin(run, hangs);
    assert.ok(ending.ended, `still running ${hangs} ms after SIGTERM`);
  });

  for (const kind of ['fifo', 'zero', 'socket'] as const) {
    test(`init and add-upgrade given ${kind === 'zero' ? 'a link to /dev/zero' : `a ${kind}`} as the binary: 64, nothing waited on`, async () => {
      const file = await notFile(path.join(t.root, 'simd-v2'), kind);
      for (const args of [
        ['init', '--force', file],
        ['add-upgrade', 'v2', file],
      ]) {
        const run = t.spawn(args);
        const ending = await endsWithin(run, hangs);
        assert.ok(ending.ended, `chainvisor ${args[0]} still ran after ${hangs} ms`);
        const r = await run;
        assert.equal(r.exitCode, 64, r.all);
        assert.match(r.all ?? '', /CHAINVISOR_BINARY_NOT_FILE/);
      }
    });
  }

  test('version: a node whose own `version` never answers (and ignores SIGTERM): chainvisor says so after its limit, exit 1', async () => {
    const stuck = await t.fakeNode({ label: 'stuck', onStart: '' });
    // The fake node's `version` answers at once: this one waits for ever, deaf to SIGTERM.
    const script = (await fs.readFile(stuck, 'utf8')).replace(/ {2}version\).*\n/, `  version) trap '' TERM; while :; do sleep 1; done ;;\n`);
    await fs.writeFile(path.join(t.home, 'cosmovisor', 'genesis', 'bin', 'simd'), script, { mode: 0o755 });
    const run = t.spawn(['version']);
    const ending = await endsWithin(run, hangs);
    assert.ok(ending.ended, `chainvisor version still ran after ${hangs} ms`);
    const r = await run;
    assert.equal(r.exitCode, 1, r.all);
    assert.match(r.stdout, /^chainvisor version: /);
    assert.match(r.stderr, new RegExp(`the node did not answer within ${versionTimeoutMs / 1000} s; it was killed`));
  });

  test('version: what a hung node started goes with it (its whole process group), nothing is left running', async () => {
    const stuck = await t.fakeNode({ label: 'stuck', onStart: '' });
    const pidFile = path.join(t.root, 'child.pid');
    // `version` starts a child of its own (reparented to PID 1 if only the node were killed), then hangs.
    const script = (await fs.readFile(stuck, 'utf8')).replace(
      / {2}version\).*\n/,
      `  version) sleep 60 & echo $! > '${pidFile}'; trap '' TERM; while :; do sleep 1; done ;;\n`,
    );
    await fs.writeFile(path.join(t.home, 'cosmovisor', 'genesis', 'bin', 'simd'), script, { mode: 0o755 });
    const r = await t.spawn(['version']);
    assert.equal(r.exitCode, 1, r.all);
    const pid = Number(await fs.readFile(pidFile, 'utf8'));
    assert.ok(pid > 0, 'the node started its child');
    await waitFor(async () => !(await isProcessAlive(pid)), `the node's child ${pid} is stopped with it`);
  });
});
