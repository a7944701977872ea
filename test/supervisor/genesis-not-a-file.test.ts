/**
 * The node's genesis file, read by the sign guard before every start (the chain id names its record),
 * when it is not a file: a FIFO no one writes, a link to /dev/zero, a socket, a link loop, a folder.
 * `chainvisor run` refuses at once with CHAINVISOR_GENESIS_UNREADABLE (84) and starts no node (it
 * could not read its genesis either), where it hung (100 % CPU on /dev/zero) and let SIGTERM go
 * unanswered. A stop signal during the read ends chainvisor within DAEMON_SHUTDOWN_GRACE.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { makeHome, type TestHome, waitFor } from '../support/home.js';
import { endsWithin, fifoWriter, holdsOpen, isRoot, makeNotFile, type NotFileKind, notFileReason } from '../support/not-files.js';

/** Many times what a refusal takes: a run still going then hangs. */
const hangs = 30_000;

describe('chainvisor run: a genesis that is not a file', () => {
  let t: TestHome;
  let close: () => Promise<void> = async () => undefined;
  let genesisFile: string;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_SHUTDOWN_GRACE: '1s' });
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    await fs.mkdir(path.join(t.home, 'config'), { recursive: true });
    genesisFile = path.join(t.home, 'config', 'genesis.json');
  });
  afterEach(async () => {
    await close();
    await t.cleanup();
  });

  const describeKind = (kind: NotFileKind) => (kind === 'zero' ? 'a link to /dev/zero' : `a ${kind}`);

  for (const kind of ['fifo', 'zero', 'socket', 'loop', 'folder'] as const) {
    test(`genesis.json is ${describeKind(kind)}: 84 CHAINVISOR_GENESIS_UNREADABLE at once, no node started`, async () => {
      close = await makeNotFile(genesisFile, kind);
      const run = t.spawn(['run', 'start']);
      const ending = await endsWithin(run, hangs);
      assert.ok(ending.ended, `chainvisor run still ran after ${hangs} ms: it hangs on the genesis`);
      const r = await run;
      assert.equal(r.exitCode, 84, r.all);
      assert.match(r.stderr, new RegExp(`cannot read the chain id from the genesis file ${genesisFile}: ${notFileReason[kind].source}`));
      assert.match(r.stderr, /code: CHAINVISOR_GENESIS_UNREADABLE/);
      assert.deepEqual(await t.journalLines(), [], 'the node never started');
    });
  }

  test('genesis.json that cannot be read (permission denied): 84, named', { skip: isRoot && 'root reads whatever the permission bits say' }, async () => {
    await fs.writeFile(genesisFile, '{"chain_id":"x-1"}', { mode: 0o000 });
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 84, r.stderr);
    assert.match(r.stderr, /permission denied \(EACCES\)/);
  });

  test('a genesis of gigabytes whose chain_id never comes (sparse): a SIGTERM during its scan ends chainvisor, no node started', async () => {
    // A genesis may legitimately be gigabytes: it is scanned, as a stream; a stop need not wait for the end.
    const handle = await fs.open(genesisFile, 'w');
    await handle.truncate(16 * 1024 ** 3);
    await handle.close();
    const run = t.spawn(['run', 'start']);
    const pid = run.pid as number;
    await waitFor(async () => run.exitCode !== null || (await holdsOpen(pid, genesisFile)), 'chainvisor scanning the genesis');
    process.kill(pid, 'SIGTERM'); // straight to the process: execa's kill would follow it with a SIGKILL after 5 s
    const ending = await endsWithin(run, 1000 + hangs);
    assert.ok(ending.ended, `chainvisor still ran ${ending.ms} ms after SIGTERM`);
    const r = await run;
    assert.equal(r.exitCode, 143, `signal ${r.signal}:\n${r.all}`);
    assert.deepEqual(await t.journalLines(), [], 'the node never started');
  });

  for (const kind of ['fifo', 'zero'] as const) {
    test(`genesis.json is ${describeKind(kind)}: a SIGTERM during the start ends chainvisor within DAEMON_SHUTDOWN_GRACE`, async () => {
      close = await makeNotFile(genesisFile, kind);
      const run = t.spawn(['run', 'start']);
      const pid = run.pid as number;
      // The moment it reads the genesis, where it hung: it waits in the FIFO's open (a writer's end, held
      // open, then keeps it waiting for data), or holds /dev/zero. Refusing either, it ends by itself first.
      let writer: fs.FileHandle | undefined;
      try {
        await waitFor(
          async () => run.exitCode !== null || (kind === 'fifo' ? (writer ??= await fifoWriter(genesisFile)) !== undefined : await holdsOpen(pid, '/dev/zero')),
          'chainvisor reading the genesis, or ended',
        );
        // Straight to the process: execa's kill would follow it with a SIGKILL after 5 s.
        if (run.exitCode === null) process.kill(pid, 'SIGTERM');
        const ending = await endsWithin(run, 1000 + hangs);
        assert.ok(ending.ended, `chainvisor still ran ${ending.ms} ms after SIGTERM`);
      } finally {
        await writer?.close();
      }
      const r = await run;
      // It ends by itself (84) or at the signal (143): either way it does not hang, and no node ran.
      assert.ok(r.exitCode === 84 || r.exitCode === 143, `exit ${r.exitCode} (signal ${r.signal}):\n${r.all}`);
      assert.deepEqual(await t.journalLines(), [], 'the node never started');
    });
  }
});
