import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';

import { createEventBus } from '../../../src/shared/events/index.js';
import { createProgressEmitter, type ProgressData, progressOnBus, startProgressView } from '../../../src/shared/progress/index.js';
import { memoryLogger } from '../../support/download-kit.js';

describe('progress', () => {
  test('the emitter throttles, and its deltas add up to the bytes transferred (a restart included)', () => {
    let clock = 0;
    const sent: ProgressData[] = [];
    const p = createProgressEmitter({ what: 'x', intervalMs: 100, now: () => clock, emit: (d) => sent.push(d) });
    for (let bytes = 10; bytes <= 1000; bytes += 10) {
      clock += 5;
      p.update(bytes, 1000);
    }
    p.update(300, 1000); // the server sent the file from the start again
    p.finish();
    p.finish();
    assert.ok(sent.length < 10, `throttled: ${sent.length} events for 101 updates`);
    assert.equal(sent.at(-1)?.done, true);
    assert.equal(sent.filter((d) => d.done).length, 1);
    assert.equal(
      sent.reduce((sum, d) => sum + d.delta, 0),
      1300,
    );
  });

  test('without a terminal: a log line every 10 % (or 5 s) with bytes, total, rate and ETA, and one at the end', () => {
    let clock = 0;
    const bus = createEventBus();
    const log = memoryLogger();
    startProgressView({ bus, logger: log.logger, now: () => clock });
    const total = 1000;
    for (let bytes = 0; bytes <= total; bytes += 25) {
      clock += 100;
      bus.emit('download-progress', { text: 'downloading', data: { id: 'a', what: 'https://example/x', bytes, total, delta: 25, done: bytes === total } });
    }
    const lines = log.lines().filter((l) => l.event === 'download-progress');
    assert.ok(lines.length >= 10 && lines.length <= 12, `about one line per 10 %: ${lines.length}`);
    const last = lines.at(-1) as Record<string, unknown>;
    assert.equal(last.bytes, 1000);
    assert.equal(last.total, 1000);
    assert.equal(last.percent, 100);
    assert.equal(typeof last.bytesPerSecond, 'number');
    assert.ok('etaSeconds' in last);
    assert.match(String(lines[3]?.msg), /download in progress: .* of .* \(\d+%\), .*\/s, ETA \d+s/);
  });

  test('an unknown size still logs every 5 s', () => {
    let clock = 0;
    const bus = createEventBus();
    const log = memoryLogger();
    startProgressView({ bus, logger: log.logger, now: () => clock });
    for (let i = 1; i <= 20; i++) {
      clock += 1000;
      bus.emit('backup-progress', { text: 'backing up', data: { id: 'b', what: '/data', bytes: i * 100, total: undefined, delta: 100, done: false } });
    }
    assert.equal(log.lines().filter((l) => l.event === 'backup-progress').length, 4);
  });

  test('a transfer that ends short of its total is logged as stopped, not finished', () => {
    const bus = createEventBus();
    const log = memoryLogger();
    startProgressView({ bus, logger: log.logger });
    bus.emit('download-progress', { text: 'downloading', data: { id: 'd', what: 'http://mirror/x', bytes: 304, total: 65536, delta: 304, done: true } });
    const [line] = log.lines().filter((l) => l.event === 'download-progress');
    assert.match(String(line?.msg), /^download stopped: 304 B of 64\.0 KiB/);
  });

  test('a failed transfer of unknown size is logged as stopped; a cancelled one logs no last line of its own', () => {
    const bus = createEventBus();
    const log = memoryLogger();
    startProgressView({ bus, logger: log.logger });
    bus.emit('download-progress', {
      text: 'downloading',
      data: { id: 'f', what: 'http://mirror/x', bytes: 0, total: undefined, delta: 0, done: true, outcome: 'failed' },
    });
    bus.emit('download-progress', {
      text: 'downloading',
      data: { id: 'c', what: 'http://mirror/y', bytes: 0, total: undefined, delta: 0, done: true, outcome: 'cancelled' },
    });
    const lines = log.lines().filter((l) => l.event === 'download-progress');
    assert.deepEqual(
      lines.map((l) => String(l.msg).replace(/,.*/, '')),
      ['download stopped: 0 B of unknown size (?)'],
    );
  });

  test('on a terminal: a bar redrawn in place, ended by a newline', () => {
    const bus = createEventBus();
    const tty = new PassThrough();
    let out = '';
    tty.on('data', (c: Buffer) => (out += c.toString()));
    startProgressView({ bus, logger: memoryLogger().logger, tty });
    bus.emit('download-progress', { text: 'd', data: { id: 'a', what: 'u', bytes: 512, total: 1024, delta: 512, done: false } });
    bus.emit('download-progress', { text: 'd', data: { id: 'a', what: 'u', bytes: 1024, total: 1024, delta: 512, done: true } });
    assert.match(out, /\r.*download \[#{12}-{12}\] 50%/);
    assert.match(out, /100% 1\.0 KiB \/ 1\.0 KiB .* done\n$/);
  });

  test("progressOnBus: a backup's onProgress callback becomes backup-progress events, then log lines", () => {
    const bus = createEventBus();
    const log = memoryLogger();
    startProgressView({ bus, logger: log.logger });
    const seen: string[] = [];
    bus.on((e) => seen.push(e.event));
    const progress = progressOnBus({ events: bus, event: 'backup-progress', what: '/home/node/data' });
    progress.update(100, 1000);
    progress.update(1000, 1000);
    progress.finish();
    assert.ok(seen.length >= 2 && seen.every((e) => e === 'backup-progress'));
    const last = log
      .lines()
      .filter((l) => l.event === 'backup-progress')
      .at(-1);
    assert.equal(last?.bytes, 1000);
    assert.match(String(last?.msg), /^backup finished: 1000 B of 1000 B \(100%\)/);
  });
});
