import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { makeHome, type TestHome, waitFor } from '../support/home.js';

describe('chainvisor run: signals', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  async function started() {
    await waitFor(async () => (await t.journalLines()).some((l) => l.startsWith('genesis start')), 'the node started');
  }

  test('SIGTERM is forwarded and chainvisor exits with the node status', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const run = t.spawn(['run', 'start']);
    await started();
    run.kill('SIGTERM');
    const r = await run;
    assert.equal(r.exitCode, 143, r.all);
    assert.ok((await t.journalLines()).includes('genesis got TERM'));
  });

  test('SIGINT is forwarded as SIGINT', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const run = t.spawn(['run', 'start']);
    await started();
    run.kill('SIGINT');
    const r = await run;
    assert.equal(r.exitCode, 130, r.all);
    assert.ok((await t.journalLines()).includes('genesis got INT'));
  });

  test('SIGHUP is forwarded and the node keeps running', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
    const run = t.spawn(['run', 'start']);
    try {
      await started();
      run.kill('SIGHUP');
      await waitFor(async () => (await t.journalLines()).includes('genesis got HUP'), 'the node got SIGHUP');
      assert.equal(run.exitCode, null, 'still running');
    } finally {
      run.kill('SIGTERM');
    }
    assert.equal((await run).exitCode, 143);
  });

  test('a node that ignores the forwarded SIGTERM is killed after DAEMON_SHUTDOWN_GRACE: 128+9', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', ignoreTerm: true })]);
    const run = t.spawn(['run', 'start'], { DAEMON_SHUTDOWN_GRACE: '500ms' });
    await started();
    run.kill('SIGTERM');
    const r = await run;
    assert.equal(r.exitCode, 137, r.all);
    assert.ok((await t.journalLines()).includes('genesis got TERM (ignored)'));
  });

  test('a second stop signal kills the node at once', async () => {
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', ignoreTerm: true })]);
    const run = t.spawn(['run', 'start']);
    await started();
    run.kill('SIGTERM');
    await waitFor(async () => (await t.journalLines()).includes('genesis got TERM (ignored)'), 'the node got SIGTERM');
    run.kill('SIGTERM');
    const r = await run;
    assert.equal(r.exitCode, 137, r.all);
    assert.match(r.all ?? '', /second stop signal: killing the node now/);
  });
});
