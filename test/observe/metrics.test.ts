import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createMetrics, type MetricsSnapshot } from '../../src/observe/metrics.js';
import { createEventBus } from '../../src/shared/events/index.js';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  test('counters and histograms follow the events; state gauges follow the snapshot', async () => {
    const bus = createEventBus();
    let snap: MetricsSnapshot = { nodeUp: true, current: 'genesis', pending: null };
    const metrics = createMetrics({ bus, version: '1.2.3', snapshot: async () => snap });
    try {
      let text = await metrics.render();
      assert.equal(sample(text, 'chainvisor_build_info{version="1.2.3"}'), 1);
      assert.equal(sample(text, 'chainvisor_upgrades_total{result="failed"}'), 0);
      assert.doesNotMatch(text, /^chainvisor_upgrade_pending\{/m, 'no pending series without a pending upgrade');

      snap = { nodeUp: true, current: 'genesis', pending: { name: 'v2', height: 100, blocksRemaining: 7, binaryPresent: false } };
      bus.emit('download-progress', { text: 'd', data: { bytes: 1000, delta: 1000, done: false } });
      bus.emit('download-progress', { text: 'd', data: { bytes: 1500, delta: 500, done: true } });
      bus.emit('backup-done', { text: 'b', data: { ms: 2500, mode: 'copy', path: '/x/data-backup-1' } });
      bus.emit('upgrade-failed', { upgrade: { name: 'v2', height: 100 }, text: 'failed' });
      text = await metrics.render();
      assert.equal(sample(text, 'chainvisor_upgrade_pending{name="v2",height="100"}'), 1);
      assert.equal(sample(text, 'chainvisor_upgrade_blocks_remaining{name="v2",height="100"}'), 7);
      assert.equal(sample(text, 'chainvisor_upgrade_binary_present{name="v2"}'), 0);
      assert.equal(sample(text, 'chainvisor_download_bytes_total'), 1500);
      assert.equal(sample(text, 'chainvisor_backup_duration_seconds_sum'), 2.5);
      assert.equal(sample(text, 'chainvisor_upgrades_total{result="failed"}'), 1);

      snap = { nodeUp: false, current: 'v2', pending: null };
      text = await metrics.render();
      assert.equal(sample(text, 'chainvisor_node_up'), 0);
      assert.equal(sample(text, 'chainvisor_current_upgrade_info{name="v2"}'), 1);
      assert.equal(sample(text, 'chainvisor_current_upgrade_info{name="genesis"}'), undefined, 'the old current is gone');
      assert.doesNotMatch(text, /^chainvisor_upgrade_blocks_remaining\{/m);
    } finally {
      metrics.close();
    }
  });
});

test('after an upgrade: the prevote share while waiting, then confirmed, seconds and signed; cleared by the next upgrade', async () => {
  const bus = createEventBus();
  const metrics = createMetrics({ bus, version: 't', snapshot: async () => ({ nodeUp: true, current: 'v2', pending: null }) });
  try {
    const v2 = { name: 'v2', height: 100 };
    const base = { upgrade: 'v2', height: 100, round: 1, precommitRatio: 0, ownPrevote: true, signed: null, seconds: null, since: '' };
    bus.emit('upgrade-applied', { upgrade: v2, text: 'applied', data: { ms: 1 } });
    bus.emit('network-waiting', { upgrade: v2, text: 'w', data: { ...base, state: 'waiting', prevoteRatio: 0.25 } });
    bus.emit('consensus-round', { upgrade: v2, text: 'w', data: { ...base, state: 'waiting', prevoteRatio: 0.5 } });
    let text = await metrics.render();
    assert.equal(sample(text, 'chainvisor_network_prevote_ratio{upgrade="v2"}'), 0.5);
    assert.equal(sample(text, 'chainvisor_upgrade_confirmed{upgrade="v2"}'), 0);
    assert.doesNotMatch(text, /^chainvisor_validator_signed\{/m);
    bus.emit('upgrade-confirmed', { upgrade: v2, text: 'c', data: { ...base, state: 'confirmed', prevoteRatio: null, signed: false, seconds: 4.5 } });
    bus.emit('validator-not-signing', { upgrade: v2, text: 'n', data: { ...base, state: 'not-signing', prevoteRatio: null, signed: false, seconds: 4.5 } });
    text = await metrics.render();
    assert.equal(sample(text, 'chainvisor_network_prevote_ratio{upgrade="v2"}'), undefined, 'present only while waiting');
    assert.equal(sample(text, 'chainvisor_upgrade_confirmed{upgrade="v2"}'), 1);
    assert.equal(sample(text, 'chainvisor_upgrade_confirm_seconds{upgrade="v2"}'), 4.5);
    assert.equal(sample(text, 'chainvisor_validator_signed{upgrade="v2"}'), 0);
    bus.emit('upgrade-applied', { upgrade: { name: 'v3', height: 200 }, text: 'applied', data: { ms: 1 } });
    text = await metrics.render();
    assert.doesNotMatch(text, /^chainvisor_(upgrade_confirmed|validator_signed|upgrade_confirm_seconds)\{/m);
  } finally {
    metrics.close();
  }
});

test('the fleet series: node_info from the identity, the ETA and the block time from the snapshot (issue #35)', async () => {
  const bus = createEventBus();
  let snap: MetricsSnapshot = { nodeUp: true, current: 'genesis', pending: null, blockTimeSeconds: null };
  const identity = Promise.resolve({ chainId: 'cosmoshub-4', node: 'val-1', daemonName: 'gaiad' });
  const metrics = createMetrics({ bus, version: 't', snapshot: async () => snap, identity });
  try {
    await identity;
    let text = await metrics.render();
    assert.equal(sample(text, 'chainvisor_node_info{chain_id="cosmoshub-4",node="val-1",daemon_name="gaiad"}'), 1);
    assert.doesNotMatch(text, /^chainvisor_block_time_seconds /m, 'absent while unknown');
    assert.doesNotMatch(text, /^chainvisor_upgrade_eta_seconds\{/m);
    snap = {
      nodeUp: true,
      current: 'genesis',
      pending: { name: 'v2', height: 100, blocksRemaining: 7, binaryPresent: true, eta: { seconds: 42 } },
      blockTimeSeconds: 6,
    };
    text = await metrics.render();
    assert.equal(sample(text, 'chainvisor_upgrade_eta_seconds{name="v2"}'), 42);
    assert.equal(sample(text, 'chainvisor_block_time_seconds'), 6);
    snap = { nodeUp: true, current: 'v2', pending: null, blockTimeSeconds: 6 };
    text = await metrics.render();
    assert.doesNotMatch(text, /^chainvisor_upgrade_eta_seconds\{/m, 'gone with the plan');
  } finally {
    metrics.close();
  }
});

test('the after-upgrade gauges end with the situation (issue #35): a stall with a later height, not signing with a signature, a key with a clear check', async () => {
  const bus = createEventBus();
  const metrics = createMetrics({ bus, version: 't', snapshot: async () => ({ nodeUp: true, current: 'v2', pending: null }) });
  try {
    let text = await metrics.render();
    assert.match(text, /^# TYPE chainvisor_key_in_use gauge$/m);
    assert.doesNotMatch(text, /^chainvisor_key_in_use /m, 'absent until a twin check has looked');
    bus.emit('key-in-use', { text: 'k', data: { state: 'key-in-use' } });
    bus.emit('twin-checked', { text: 'off', data: { state: 'off' } });
    assert.equal(sample(await metrics.render(), 'chainvisor_key_in_use'), 1, 'a check that did not look changes nothing');
    bus.emit('twin-checked', { text: 'clear', data: { state: 'clear' } });
    assert.equal(sample(await metrics.render(), 'chainvisor_key_in_use'), 0);

    const v2 = { name: 'v2', height: 100 };
    const base = { upgrade: 'v2', height: 100, round: 3, precommitRatio: 0, ownPrevote: true, signed: null, seconds: null, since: '' };
    bus.emit('upgrade-applied', { upgrade: v2, text: 'applied', data: { ms: 1 } });
    bus.emit('upgrade-stalled', { upgrade: v2, text: 's', data: { ...base, state: 'stalled', prevoteRatio: 0.5 } });
    bus.emit('chain-height', { text: 'h', data: { height: 100 } });
    text = await metrics.render();
    assert.equal(sample(text, 'chainvisor_upgrade_confirmed{upgrade="v2"}'), 0, 'the height itself is not past it');
    // The follow ended with the node; the plan watch reads a height past the upgrade's: the network went on.
    bus.emit('chain-height', { text: 'h', data: { height: 102 } });
    text = await metrics.render();
    assert.equal(sample(text, 'chainvisor_upgrade_confirmed{upgrade="v2"}'), 1);
    assert.equal(sample(text, 'chainvisor_network_prevote_ratio{upgrade="v2"}'), undefined);

    bus.emit('validator-not-signing', { upgrade: v2, text: 'n', data: { ...base, state: 'not-signing', prevoteRatio: null, signed: false } });
    assert.equal(sample(await metrics.render(), 'chainvisor_validator_signed{upgrade="v2"}'), 0);
    bus.emit('upgrade-confirmed', {
      upgrade: v2,
      text: 'again',
      data: { ...base, state: 'confirmed', prevoteRatio: null, signed: true, height: 106, signsAgain: true },
    });
    assert.equal(sample(await metrics.render(), 'chainvisor_validator_signed{upgrade="v2"}'), 1);
  } finally {
    metrics.close();
  }
});

test("chainvisor_process_private_memory_bytes is this process's RssAnon, below its RSS (which counts file pages too)", async () => {
  const metrics = createMetrics({ bus: createEventBus(), version: '1.2.3', snapshot: async () => ({ nodeUp: true, current: 'genesis', pending: null }) });
  try {
    const text = await metrics.render();
    const priv = sample(text, 'chainvisor_process_private_memory_bytes');
    const rss = sample(text, 'process_resident_memory_bytes');
    assert.ok(priv !== undefined && rss !== undefined, text.slice(0, 400));
    assert.ok(priv > 1024 * 1024, `private memory ${priv} bytes`);
    assert.ok(priv < rss, `private ${priv} < RSS ${rss}`);
  } finally {
    metrics.close();
  }
});
