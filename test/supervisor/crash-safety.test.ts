import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { plan } from '../support/fake-node.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

describe('chainvisor run: crashes and failures mid-upgrade', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('chainvisor killed with SIGKILL mid-upgrade: current unchanged, the next start finishes the upgrade', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10, preUpgrade: [0] });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const marker = path.join(t.root, 'slow-started');
    await fs.writeFile(path.join(t.home, 'cosmovisor', 'slow.sh'), `#!/bin/sh\necho $$ > '${marker}'\nexec sleep 30\n`, { mode: 0o755 });

    const run = t.spawn(['run', 'start'], { COSMOVISOR_CUSTOM_PREUPGRADE: 'slow.sh' });
    await waitFor(async () => (await fs.readFile(marker, 'utf8').catch(() => '')).trim() !== '', 'the upgrade sequence to be under way');
    run.kill('SIGKILL');
    await run;
    process.kill(Number(await fs.readFile(marker, 'utf8')), 'SIGKILL'); // the orphaned script
    assert.equal(await t.current(), 'genesis', 'nothing was switched');
    const hidden = () => fs.readdir(path.join(t.home, 'cosmovisor')).then((e) => e.filter((n) => n.startsWith('.') && n !== '.chainvisor'));
    // At most the new link made ahead of the switch (never renamed over `current`), which the next start removes.
    const left = await hidden();
    assert.ok(left.length <= 1 && left.every((n) => /^\.current\.tmp-\d+-[0-9a-f]{8}$/.test(n)), `only the link made ahead may be left: ${left.join(', ')}`);

    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stderr, /an upgrade is already due at start-up/);
    if (left.length > 0) assert.match(r.stderr, /removed a file left by an interrupted switch/);
    assert.deepEqual(await hidden(), [], 'no temporary files left after the next start');
    const lines = await t.journalLines();
    assert.equal(lines.filter((l) => l.startsWith('genesis start')).length, 1, 'genesis never ran past its halt height');
    assert.deepEqual(lines.slice(-3), ['v2 pre-upgrade 0', 'v2 start [start]', 'v2 exit 0']);
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test('a failed backup removes its partial copy, exits 81 and leaves current unchanged', async () => {
    const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } });
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data', 'state.db'), 'state');
    execFileSync('mkfifo', [path.join(t.home, 'data', 'node.sock')]); // a file no copy can take
    const backups = path.join(t.root, 'backups');
    await fs.mkdir(backups);

    const r = await t.cli(['run', 'start'], { UNSAFE_SKIP_BACKUP: 'false', DAEMON_DATA_BACKUP_DIR: backups });
    assert.equal(r.exitCode, 81, r.stderr);
    assert.match(r.stderr, /backup of .*data to .*data-backup-.* failed: .*; nothing was switched, the partial copy was removed/);
    assert.match(r.stderr, /hint: .*UNSAFE_SKIP_BACKUP=true/);
    assert.deepEqual(await fs.readdir(backups), []);
    assert.equal(await t.current(), 'genesis');

    const retry = await t.cli(['run', 'start'], { UNSAFE_SKIP_BACKUP: 'true' });
    assert.equal(retry.exitCode, 0, retry.stderr);
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test('asked to stop during a download: exits with the signal status, not as a failed upgrade', async () => {
    let requested = false;
    const server = http.createServer((_req, res) => {
      requested = true;
      res.writeHead(200, { 'content-length': '1000' }); // and the body never comes
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/simd?checksum=sha256:${'ab'.repeat(32)}`;
      const info = JSON.stringify({ binaries: { any: url } });
      const genesis = await t.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10, info), style: 'exit' } });
      await t.cliOk(['init', genesis]);
      const run = t.spawn(['run', 'start'], { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' });
      await waitFor(() => requested, 'the download to start');
      run.kill('SIGTERM');
      const r = await run;
      assert.equal(r.exitCode, 143, r.all);
      assert.match(r.all ?? '', /stopped while applying an upgrade; current was not switched/);
      assert.equal(await t.current(), 'genesis');
      assert.deepEqual(
        await fs.readdir(path.join(t.home, 'cosmovisor')).then((e) => e.filter((n) => n.startsWith('.') && n !== '.chainvisor')),
        [],
        'no work folder left',
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
