import assert from 'node:assert/strict';
import { test } from 'node:test';

import { payloadOf } from '../../../src/observe/webhooks/index.js';
import { createEventBus } from '../../../src/shared/events/index.js';

test("the after-upgrade events' webhook bodies carry the follow's fields at the top level, beside event, upgrade and text", () => {
  const bus = createEventBus();
  const data = {
    upgrade: 'v2',
    state: 'confirmed',
    height: 100,
    round: null,
    prevoteRatio: null,
    precommitRatio: null,
    ownPrevote: true,
    signed: true,
    seconds: 4.2,
    since: 'x',
    noticedMs: 310,
  };
  const event = bus.emit('upgrade-confirmed', { upgrade: { name: 'v2', height: 100 }, text: 'v2: confirmed', data });
  const body = payloadOf(event, 'val-1') as unknown as Record<string, unknown>;
  assert.equal(body.event, 'upgrade-confirmed');
  assert.deepEqual(body.upgrade, { name: 'v2', height: 100 });
  assert.equal(body.text, 'v2: confirmed');
  assert.equal(body.signed, true);
  assert.equal(body.seconds, 4.2);
  assert.equal(body.state, 'confirmed');
  assert.equal(body.noticedMs, undefined, 'only the documented fields');
  // Other events keep their shape.
  const applied = payloadOf(bus.emit('upgrade-applied', { upgrade: { name: 'v2', height: 100 }, text: 'a', data: { dir: 'upgrades/v2', ms: 3 } }), 'h');
  assert.deepEqual(Object.keys(applied).sort(), ['event', 'host', 'text', 'time', 'upgrade']);
});
