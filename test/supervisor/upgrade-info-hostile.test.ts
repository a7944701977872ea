/**
 * data/upgrade-info.json that is not a plan-sized regular file (issue 8, item 11), with the real
 * `chainvisor run`: a FIFO is reported as CHAINVISOR_UPGRADE_INFO_INVALID and never read (a read
 * would block for good, and with it the handling of SIGTERM); a valid file that replaces it is still
 * applied; a 2 MiB file and a huge sparse one are refused by their size.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { plan } from '../support/fake-node.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

describe('run: a hostile data/upgrade-info.json', () => {
  let t: TestHome;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_POLL_INTERVAL: '50ms' });
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const file = () => path.join(t.home, 'data', 'upgrade-info.json');

  /** Starts `run` with a node that stays up; resolves once the node runs. */
  async function startRun(): Promise<{ run: ReturnType<TestHome['spawn']>; output: () => string }> {
    const genesis = await t.fakeNode({ label: 'genesis' });
    await t.cliOk(['init', genesis]);
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    const run = t.spawn(['run', 'start']);
    let text = '';
    run.all.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    await waitFor(async () => (await t.journalLines()).includes('genesis start [start]'), 'the node runs');
    return { run, output: () => text };
  }

  async function waitForCode(output: () => string, what: string): Promise<Record<string, unknown>> {
    await waitFor(() => output().includes('CHAINVISOR_UPGRADE_INFO_INVALID'), what, 20_000).catch((error: Error) => {
      throw new Error(`${error.message}; chainvisor printed:\n${output()}`);
    });
    const line = output()
      .split('\n')
      .find((l) => l.includes('CHAINVISOR_UPGRADE_INFO_INVALID')) as string;
    return JSON.parse(line) as Record<string, unknown>;
  }

  test('a FIFO is a coded error in the log; SIGTERM then stops chainvisor and the node', async () => {
    const { run, output } = await startRun();
    try {
      execFileSync('mkfifo', [file()]);
      const logged = await waitForCode(output, 'the FIFO is reported');
      assert.equal(logged.level, 50, 'logged as an error');
      assert.match(String(logged.reason), /FIFO/);
      assert.match(String(logged.hint), /regular JSON file of at most 1048576 bytes/);
      // Several polls later (each would have blocked one more thread on the FIFO), still responsive.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(run.exitCode, null, 'chainvisor still supervises the node');
    } finally {
      run.kill('SIGTERM');
    }
    const r = await run;
    assert.equal(r.exitCode, 143, `the node's status after the forwarded SIGTERM; output:\n${output()}`);
    assert.ok((await t.journalLines()).includes('genesis got TERM'), 'the node was stopped');
    assert.equal(await t.current(), 'genesis');
  });

  test('a FIFO replaced by a valid plan: the upgrade is applied', async () => {
    const v2 = await t.fakeNode({ label: 'v2', runMs: 10 });
    await t.cliOk(['add-upgrade', 'v2', v2]);
    const { run, output } = await startRun();
    try {
      execFileSync('mkfifo', [file()]);
      await waitForCode(output, 'the FIFO is reported');
      await fs.rm(file());
      const temp = `${file()}.tmp`;
      await fs.writeFile(temp, JSON.stringify(plan('v2', 10)));
      await fs.rename(temp, file());
    } catch (error) {
      run.kill('SIGTERM');
      throw error;
    }
    const r = await run;
    assert.equal(r.exitCode, 0, `v2 ran and exited 0; output:\n${output()}`);
    assert.equal(await t.current(), 'upgrades/v2');
    assert.ok((await t.journalLines()).includes('v2 start [start]'));
  });

  for (const [label, make] of [
    ['a 2 MiB file', (f: string) => fs.writeFile(f, `{"name":"v2","height":10,"info":"${'x'.repeat(2 * 1024 * 1024)}"}`)],
    // 64 GiB of nothing: refused by its size before a byte is read (memory stays small).
    ['a huge sparse file', (f: string) => fs.writeFile(f, '').then(() => fs.truncate(f, 64 * 1024 ** 3))],
  ] as const) {
    test(`${label} is a coded error, and supervision goes on`, async () => {
      const { run, output } = await startRun();
      try {
        await make(file());
        const logged = await waitForCode(output, 'the large file is reported');
        // Seen whole, the size is known; caught while it is still being written, the read stops at the limit.
        assert.match(String(logged.reason), /too large \((\d+ bytes, over|more than) the limit of 1048576 bytes\)/);
        assert.equal(run.exitCode, null, 'chainvisor still supervises the node');
      } finally {
        run.kill('SIGTERM');
      }
      const r = await run;
      assert.equal(r.exitCode, 143);
      assert.equal(await t.current(), 'genesis');
    });
  }
});
