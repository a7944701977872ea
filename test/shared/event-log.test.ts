/**
 * The bus's log listener (src/shared/event-log.ts) writes each event's line as the emitting code wrote it
 * beside its emit before #33: the same level, message and fields, in the same order. Each event is
 * emitted here as its producer emits it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { pino } from 'pino';

import { logEvents } from '../../src/shared/event-log.js';
import { createEventBus, type EventBus } from '../../src/shared/events/index.js';

/** A bus with the listener, and its lines as JSON without the fields that change from run to run. */
function logged(): { bus: EventBus; lines: () => string[] } {
  const raw: string[] = [];
  const bus = createEventBus();
  logEvents(bus, pino({ level: 'info' }, { write: (line: string) => void raw.push(line) }));
  const lines = () =>
    raw.map((line) => {
      const { time: _time, pid: _pid, hostname: _hostname, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(rest);
    });
  return { bus, lines };
}

const v2 = { name: 'v2', height: 100 };

test('the plan watch: scheduled, moved, cancelled, staged and failing staging, with its component', () => {
  const { bus, lines } = logged();
  bus.emit('upgrade-scheduled', { upgrade: v2, text: 'upgrade "v2" scheduled on chain at height 100', data: { info: '{"binaries":{}}' } });
  bus.emit('upgrade-rescheduled', { upgrade: { name: 'v2', height: 150 }, text: 'moved', data: { from: 100, info: '' } });
  bus.emit('upgrade-cancelled', { upgrade: v2, text: 'upgrade "v2" at height 100 was cancelled on chain' });
  bus.emit('upgrade-cancelled', { upgrade: v2, text: 'replaced', data: { replacedBy: { name: 'v3', height: 200 } } });
  bus.emit('binary-staged', { upgrade: v2, text: 'staged', data: { binary: '/h/b', dir: 'v2', status: 'downloaded', ms: 12 } });
  bus.emit('staging-failed', { upgrade: v2, text: 'failed (attempt 1)', data: { attempt: 1, reason: 'HTTP 404' } });
  bus.emit('staging-failed', { upgrade: v2, text: 'NOT staged', data: { blocksLeft: 9, reason: 'not installed' } });
  assert.deepEqual(lines(), [
    '{"level":30,"component":"plan-watcher","event":"upgrade-scheduled","upgrade":"v2","height":100,"info":"{\\"binaries\\":{}}","msg":"upgrade \\"v2\\" scheduled on chain at height 100"}',
    '{"level":30,"component":"plan-watcher","event":"upgrade-rescheduled","upgrade":"v2","height":150,"from":100,"info":"","msg":"moved"}',
    '{"level":40,"component":"plan-watcher","event":"upgrade-cancelled","upgrade":"v2","height":100,"msg":"upgrade \\"v2\\" at height 100 was cancelled on chain"}',
    '{"level":40,"component":"plan-watcher","event":"upgrade-cancelled","upgrade":"v2","height":100,"replacedBy":{"name":"v3","height":200},"msg":"replaced"}',
    '{"level":30,"component":"plan-watcher","event":"binary-staged","upgrade":"v2","height":100,"binary":"/h/b","status":"downloaded","msg":"staged"}',
    '{"level":40,"component":"plan-watcher","event":"staging-failed","upgrade":"v2","height":100,"attempt":1,"msg":"failed (attempt 1)"}',
    '{"level":50,"component":"plan-watcher","event":"staging-failed","upgrade":"v2","height":100,"blocksLeft":9,"msg":"NOT staged"}',
  ]);
});

test('a manual upgrade queued, the node started and exited (a crash soon after an upgrade loudly)', () => {
  const { bus, lines } = logged();
  bus.emit('upgrade-scheduled', { upgrade: { name: 'v3', height: 120 }, text: 'manual upgrade "v3" queued at height 120', data: { manual: true } });
  bus.emit('node-started', { text: 'node started: /h/b', data: { pid: 7, binary: '/h/b', args: ['start'], current: 'genesis' } });
  bus.emit('node-exited', { text: 'node exited (exit code 3)', data: { code: 3, signal: undefined, pid: 7, restarts: 1, restart: true } });
  bus.emit('node-exited', { text: 'node exited (signal SIGKILL)', data: { code: undefined, signal: 'SIGKILL', pid: 7, restarts: 0, restart: false } });
  bus.emit('node-exited', {
    text: 'node exited (exit code 2)',
    data: { code: 2, signal: undefined, pid: 7, restarts: 2, restart: true, afterUpgrade: 'v2', crashedAfterSeconds: 4 },
  });
  assert.deepEqual(lines(), [
    '{"level":30,"event":"upgrade-scheduled","upgrade":"v3","height":120,"msg":"manual upgrade \\"v3\\" queued at height 120"}',
    '{"level":30,"event":"node-started","binary":"/h/b","args":["start"],"current":"genesis","msg":"starting node"}',
    '{"level":30,"event":"node-exited","node":"exit code 3","restarts":1,"msg":"node exited (exit code 3)"}',
    '{"level":30,"event":"node-exited","node":"signal SIGKILL","restarts":0,"msg":"node exited (signal SIGKILL)"}',
    '{"level":50,"event":"node-exited","node":"exit code 2","upgrade":"v2","restarts":2,"msg":"CRASH AFTER UPGRADE: the node of upgrade \\"v2\\" failed 4 s after the switch; check the new binary and its logs (node exited (exit code 2))"}',
  ]);
});

test("rehearsals' results and a restore; an event with no line is not logged", () => {
  const { bus, lines } = logged();
  bus.emit('rehearsal-passed', { upgrade: v2, text: 'passed', data: { migration_seconds: 12, blocks_after_upgrade: 3, reason: undefined } });
  bus.emit('rehearsal-failed', { upgrade: v2, text: 'FAILED', data: { migration_seconds: undefined, blocks_after_upgrade: 0, reason: 'panic' } });
  const record = { backup: '/b/1', replaced: '/b/r', signing: { kept: true }, current: { from: 'v2', to: 'genesis' } };
  bus.emit('data-restored', { text: 'data restored from /b/1', data: { ...record } });
  bus.emit('chain-height', { text: 'chain at height 5', data: { height: 5 } });
  assert.deepEqual(lines(), [
    '{"level":30,"event":"rehearsal-passed","upgrade":"v2","migration_seconds":12,"blocks_after_upgrade":3,"msg":"passed"}',
    '{"level":50,"event":"rehearsal-failed","upgrade":"v2","blocks_after_upgrade":0,"reason":"panic","msg":"FAILED"}',
    '{"level":30,"event":"data-restored","backup":"/b/1","replaced":"/b/r","signing":{"kept":true},"current":"genesis","msg":"data restored from /b/1"}',
  ]);
});
