import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import type { Plan } from '../../src/chain/index.js';
import { silentLogger } from '../../src/shared/log.js';
import { type HaltFileWatch, watchHaltFile } from '../../src/watcher/halt-watch.js';
import { waitFor } from '../support/home.js';

for (const mode of ['auto', 'poll'] as const) {
  describe(`watching upgrade-info.json (${mode})`, () => {
    let home: string;
    let file: string;
    let plans: Plan[];
    let watcher: HaltFileWatch;
    beforeEach(async () => {
      home = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-watch-'));
      file = path.join(home, 'data', 'upgrade-info.json');
      plans = [];
      watcher = watchHaltFile({
        home,
        file,
        mode,
        // In auto mode a long poll interval shows that file events alone do the work.
        pollIntervalMs: mode === 'poll' ? 50 : 60_000,
        logger: silentLogger(),
        onPlan: (plan) => plans.push(plan),
      });
      await watcher.ready;
    });
    afterEach(async () => {
      await watcher.close();
      await fs.rm(home, { recursive: true, force: true });
    });

    test('data/ created later, file replaced by rename, then rewritten in place', async () => {
      await fs.mkdir(path.join(home, 'data'));
      await fs.writeFile(`${file}.tmp`, '{"name":"v2","height":10}');
      await fs.rename(`${file}.tmp`, file);
      await waitFor(() => plans.length === 1, 'the first plan');
      await fs.writeFile(file, '{"name":"v3","height":20}');
      await waitFor(() => plans.length === 2, 'the second plan');
      assert.deepEqual(
        plans.map((p) => p.name),
        ['v2', 'v3'],
      );
    });

    test('a file written in pieces is reported once, whole', async () => {
      await fs.mkdir(path.join(home, 'data'));
      const handle = await fs.open(file, 'w');
      await handle.write('{"name":"v2",');
      await handle.sync();
      await new Promise((r) => setTimeout(r, 300));
      await handle.write('"height":10}');
      await handle.close();
      await waitFor(() => plans.length === 1, 'the plan');
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(plans, [{ name: 'v2', height: 10, info: '' }]);
    });
  });
}

describe('watching upgrade-info.json (auto): events follow a data/ replaced', () => {
  test('data/ removed and made again: the file written in the new folder is found by its events', async (t) => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-watch-'));
    t.after(() => fs.rm(home, { recursive: true, force: true }));
    const file = path.join(home, 'data', 'upgrade-info.json');
    await fs.mkdir(path.join(home, 'data'));
    const plans: Plan[] = [];
    // An hour's poll: only file events can find the plans in time.
    const watcher = watchHaltFile({ home, file, mode: 'auto', pollIntervalMs: 3_600_000, logger: silentLogger(), onPlan: (plan) => plans.push(plan) });
    t.after(() => watcher.close());
    await watcher.ready;
    await fs.writeFile(file, '{"name":"v2","height":10}');
    await waitFor(() => plans.length === 1, 'the plan in the first data/');
    // A restore: the folder goes, a new one takes its place.
    await fs.rm(path.join(home, 'data'), { recursive: true });
    await new Promise((r) => setTimeout(r, 300));
    await fs.mkdir(path.join(home, 'data'));
    await new Promise((r) => setTimeout(r, 300));
    await fs.writeFile(file, '{"name":"v3","height":20}');
    await waitFor(() => plans.length === 2, 'the plan in the new data/');
    assert.deepEqual(
      plans.map((p) => p.name),
      ['v2', 'v3'],
    );
  });
});
