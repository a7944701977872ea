import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEventBus, type SupervisorEvent } from '../../../src/shared/events/index.js';

test('listeners receive events in order; a throwing listener neither breaks emit nor the others', () => {
  const bus = createEventBus();
  const seen: SupervisorEvent[] = [];
  bus.on(() => {
    throw new Error('observer bug');
  });
  const off = bus.on((event) => seen.push(event));
  bus.emit('upgrade-detected', { upgrade: { name: 'v2', height: 10 }, text: 'upgrade v2 detected' });
  bus.emit('upgrade-applied', { upgrade: { name: 'v2', height: 10 }, text: 'upgrade v2 applied', data: { ms: 12 } });
  off();
  bus.emit('node-exited', { text: 'not seen' });
  assert.deepEqual(
    seen.map((e) => e.event),
    ['upgrade-detected', 'upgrade-applied'],
  );
  assert.equal(seen[1]?.data?.ms, 12);
  assert.equal(typeof seen[0]?.time, 'number');
});
