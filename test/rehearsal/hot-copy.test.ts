/**
 * The live data copied while a LevelDB database is being written (issue #19, item 2): the copy opens
 * cleanly and holds a whole prefix of the writes (every batch up to the last one it has); the
 * application's database is taken before CometBFT's stores; the signing state, the consensus WAL and a
 * pending upgrade-info.json are left out; tables removed or written during the copy are handled.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

import { ClassicLevel } from 'classic-level';

import { createPlacer, type Placer } from '../../src/home/backup/index.js';
import { copyLiveData } from '../../src/rehearsal/hot-copy.js';
import { liveTables, tableNames } from '../../src/rehearsal/manifest.js';
import { silentLogger } from '../../src/shared/log.js';

async function tempDir(t: TestContext): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-hot-copy-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A database written in one batch per "block" (the key `last` and `k<n>` together), with small memtables:
 * flushes and compactions all along. A batch every 2 ms or so (hundreds a second, where a node writes a
 * block every few seconds): as fast as the disk would go, the writes changed the MANIFEST during every
 * one of the copy's passes whenever the machine was busy enough to slow the copy.
 */
async function busyDatabase(dir: string) {
  const db = new ClassicLevel<string, string>(dir, { writeBufferSize: 64 * 1024 });
  await db.open();
  let n = 0;
  let stop = false;
  const filler = 'x'.repeat(2000);
  const writing = (async () => {
    while (!stop) {
      n += 1;
      await db.batch(
        [
          { type: 'put', key: `k${String(n).padStart(8, '0')}`, value: `${n}:${filler}` },
          { type: 'put', key: 'last', value: String(n) },
        ],
        { sync: false },
      );
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return {
    written: () => n,
    async close() {
      stop = true;
      await writing;
      await db.close();
    },
  };
}

async function checkCopy(dir: string): Promise<number> {
  const db = new ClassicLevel<string, string>(dir);
  await db.open();
  try {
    const last = Number(await db.get('last'));
    assert.ok(last > 0);
    let count = 0;
    for await (const [key, value] of db.iterator({ gte: 'k', lt: 'l' })) {
      count += 1;
      assert.equal(key, `k${String(count).padStart(8, '0')}`, 'no hole in the writes');
      assert.ok(value.startsWith(`${count}:`));
    }
    assert.equal(count, last, 'every batch up to the last one, and none after it');
    return last;
  } finally {
    await db.close();
  }
}

function recording(placer: Placer, order: string[]): Placer {
  return {
    counts: placer.counts,
    place: async (src, dst, entry, onBytes) => {
      order.push(entry.rel);
      await placer.place(src, dst, entry, onBytes);
    },
  };
}

for (const mode of ['copy', 'link'] as const) {
  test(`${mode}: a database written during the copy opens cleanly with a whole prefix of its writes`, async (t) => {
    const root = await tempDir(t);
    const data = path.join(root, 'data');
    const app = await busyDatabase(path.join(data, 'application.db'));
    const blocks = await busyDatabase(path.join(data, 'blockstore.db'));
    await new Promise((r) => setTimeout(r, 500)); // some tables on disk first
    const order: string[] = [];
    const placer = recording(createPlacer({ mode, logger: silentLogger(), backupDir: root }), order);
    const copy = await copyLiveData({ dataDir: data, target: path.join(root, 'copy'), placer, logger: silentLogger(), signal: new AbortController().signal });
    const during = app.written();
    await app.close();
    await blocks.close();
    assert.deepEqual(
      copy.databases.map((d) => d.rel),
      ['application.db', 'blockstore.db'],
      'the application first',
    );
    assert.ok(copy.databases.every((d) => d.verified));
    t.diagnostic(`passes: ${copy.databases.map((d) => d.passes).join(', ')}; batches written during the copy: ${during}`);
    const lastApp = order.findLastIndex((rel) => rel.startsWith('application.db'));
    const firstBlocks = order.findIndex((rel) => rel.startsWith('blockstore.db'));
    assert.ok(lastApp < firstBlocks, 'every file of the application database placed before the block store');
    const last = await checkCopy(path.join(root, 'copy', 'application.db'));
    assert.ok(last <= during);
    await checkCopy(path.join(root, 'copy', 'blockstore.db'));
  });
}

test('the signing state, the consensus WAL, a pending upgrade-info.json, snapshots and the batch queue are not copied', async (t) => {
  const root = await tempDir(t);
  const data = path.join(root, 'data');
  for (const rel of [
    'priv_validator_state.json',
    'cs.wal/wal',
    'upgrade-info.json',
    'upgrade-info.json.batch',
    'snapshots/metadata.db/x',
    'evidence.db/000001.log',
    'tx_index.db/CURRENT',
  ]) {
    await fs.mkdir(path.dirname(path.join(data, rel)), { recursive: true });
    await fs.writeFile(path.join(data, rel), 'x');
  }
  await fs.writeFile(path.join(data, 'tx_index.db', 'CURRENT'), 'MANIFEST-000001\n');
  await fs.writeFile(path.join(data, 'tx_index.db', 'MANIFEST-000001'), '');
  const placer = createPlacer({ mode: 'copy', logger: silentLogger(), backupDir: root });
  await copyLiveData({ dataDir: data, target: path.join(root, 'copy'), placer, logger: silentLogger(), signal: new AbortController().signal });
  const copied = (await fs.readdir(path.join(root, 'copy'), { recursive: true })).sort();
  assert.deepEqual(copied, ['evidence.db', 'evidence.db/000001.log', 'tx_index.db', 'tx_index.db/CURRENT', 'tx_index.db/MANIFEST-000001']);
});

test('a table the MANIFEST names that a compaction removed before it was copied: passes again, then says why', async (t) => {
  const root = await tempDir(t);
  const dir = path.join(root, 'data', 'application.db');
  const db = new ClassicLevel<string, string>(dir, { writeBufferSize: 16 * 1024 });
  await db.open();
  for (let i = 0; i < 200; i++) await db.put(`k${i}`, 'y'.repeat(1000));
  await db.close();
  const manifest = (await fs.readFile(path.join(dir, 'CURRENT'), 'utf8')).trim();
  const live = liveTables(await fs.readFile(path.join(dir, manifest)));
  assert.ok(live && live.tables.size > 0);
  // Every table the MANIFEST names is gone: no pass can find it.
  for (const number of live.tables.keys()) for (const name of tableNames(number)) await fs.rm(path.join(dir, name), { force: true });
  const placer = createPlacer({ mode: 'copy', logger: silentLogger(), backupDir: root });
  await assert.rejects(
    copyLiveData({
      dataDir: path.join(root, 'data'),
      target: path.join(root, 'copy'),
      placer,
      logger: silentLogger(),
      signal: new AbortController().signal,
      maxPasses: 3,
    }),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, 'CHAINVISOR_REHEARSAL_COPY_FAILED');
      assert.match(
        error.message,
        /no consistent copy of .*application\.db could be taken from the running node in 3 passes: \d+ tables? its MANIFEST names \(\d{6}\.ldb/,
      );
      return true;
    },
  );
});

test('the MANIFEST reader: the tables it names are the tables a closed database keeps; a torn tail is its end', async (t) => {
  const root = await tempDir(t);
  const db = new ClassicLevel<string, string>(root, { writeBufferSize: 16 * 1024 });
  await db.open();
  for (let i = 0; i < 500; i++) await db.put(`k${i % 97}`, 'z'.repeat(800));
  await db.compactRange('k', 'l');
  await db.close();
  const manifest = (await fs.readFile(path.join(root, 'CURRENT'), 'utf8')).trim();
  const bytes = await fs.readFile(path.join(root, manifest));
  const live = liveTables(bytes);
  assert.ok(live);
  const onDisk = new Map<number, number>();
  for (const name of await fs.readdir(root)) {
    const m = /^(\d+)\.(ldb|sst)$/.exec(name);
    if (m) onDisk.set(Number(m[1]), (await fs.stat(path.join(root, name))).size);
  }
  assert.deepEqual([...live.tables].sort(), [...onDisk].sort());
  for (let cut = 1; cut < Math.min(40, bytes.length); cut += 7) assert.ok(liveTables(bytes.subarray(0, bytes.length - cut)) !== undefined);
});
