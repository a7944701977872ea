/**
 * The node record across a switch: the next node's record may be begun while the old node is still
 * stopping (it is written beside the upgrade sequence); the old node's exit must not remove it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { createNodeTracker, readNodeRecord } from '../../src/guard/node-record.js';
import { layoutFor } from '../../src/home/layout/index.js';
import { createLogger } from '../../src/shared/log.js';

function sleeper() {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { pid: child.pid, exited, stop: () => child.kill('SIGKILL') };
}

describe('node record', () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-node-record-'));
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  test("the next node's record, begun while the old node stops, survives the old node's exit", async () => {
    const layout = layoutFor({ home, name: 'simd' });
    const tracker = createNodeTracker({ layout, logger: createLogger({ disabled: true }), runId: 'run-1' });
    const old = sleeper();
    await tracker.beforeSpawn('/bin/old');
    tracker.spawned(old);
    await tracker.settled();
    assert.equal((await readNodeRecord(layout))?.pid, old.pid);

    // The switch: the old node is being stopped while the new node's record is begun.
    const begun = tracker.beforeSpawn('/bin/new');
    old.stop();
    await old.exited;
    await begun;
    await tracker.settled();
    const between = await readNodeRecord(layout);
    assert.equal(between?.binary, '/bin/new', 'the old exit removed (or overwrote) the record of the next node');
    assert.equal(between?.runId, 'run-1');
    assert.equal(between?.pid, undefined);

    const next = sleeper();
    tracker.spawned(next);
    await tracker.settled();
    assert.equal((await readNodeRecord(layout))?.pid, next.pid);
    next.stop();
    await next.exited;
    // Let the exit's removal reach the queue, then wait for it.
    await new Promise((resolve) => setImmediate(resolve));
    await tracker.settled();
    assert.equal(await readNodeRecord(layout), undefined, 'the last node exited: no record is left');
  });

  test('a record begun for a node that is then not started (a failed upgrade) is removed', async () => {
    const layout = layoutFor({ home, name: 'simd' });
    const tracker = createNodeTracker({ layout, logger: createLogger({ disabled: true }), runId: 'run-2' });
    await tracker.beforeSpawn('/bin/never');
    assert.equal((await readNodeRecord(layout))?.binary, '/bin/never');
    await tracker.notSpawned();
    assert.equal(await readNodeRecord(layout), undefined);
    // A started node's record is not touched by it.
    const node = sleeper();
    await tracker.beforeSpawn('/bin/started');
    tracker.spawned(node);
    await tracker.notSpawned();
    assert.equal((await readNodeRecord(layout))?.pid, node.pid);
    node.stop();
    await node.exited;
  });
});
