/**
 * `run` follows `rehearsals.json` (written by `chainvisor rehearse`, by hand or started by ./auto.ts):
 * a new report becomes a `rehearsal-passed` or `rehearsal-failed` event on the bus (webhooks, the log:
 * a failure an error line). A stat every few seconds (libuv's file poll), nothing more while it is unchanged.
 * A failed rehearsal never stops an upgrade: the network upgrades at its height; the operator must know first.
 * The event's height is the plan's, as announced on the bus (`upgrade-scheduled`, `upgrade-rescheduled`; 0 when run saw none);
 * the report's own is the scratch testnet's, where the copy halted, sent as `scratch_height`.
 */
import type { Layout } from '../home/layout/index.js';
import type { EventBus } from '../shared/events/index.js';
import { pollStat } from '../shared/fsread/index.js';
import { readRehearsals, rehearsalsPath } from './record.js';

export function followRehearsals(options: { layout: Layout; bus: EventBus; intervalMs?: number }): { close(): void } {
  const { layout, bus } = options;
  const key = (r: { upgrade: string; finished_at: string }) => `${r.upgrade}@${r.finished_at}`;
  let seen: Set<string> | undefined;
  let reading = Promise.resolve();
  const planHeights = new Map<string, number>();
  const off = bus.on((e) => {
    if ((e.event === 'upgrade-scheduled' || e.event === 'upgrade-rescheduled' || e.event === 'upgrade-proposed') && e.upgrade)
      planHeights.set(e.upgrade.name, e.upgrade.height);
  });
  const read = () => {
    reading = reading.then(async () => {
      const records = await readRehearsals(layout).catch(() => []);
      if (seen === undefined) {
        seen = new Set(records.map(key)); // what was there before this run is history, not news
        return;
      }
      for (const r of records) {
        if (seen.has(key(r))) continue;
        seen.add(key(r));
        const upgrade = { name: r.upgrade, height: planHeights.get(r.upgrade) ?? 0 };
        const data = { migration_seconds: r.migration_seconds, blocks_after_upgrade: r.blocks_after_upgrade, reason: r.reason, scratch_height: r.height };
        if (r.result === 'passed') {
          const text = `rehearsal of upgrade "${r.upgrade}" passed on a copy of this node's state: migration ${r.migration_seconds ?? '?'} s, ${r.blocks_after_upgrade} blocks after it`;
          bus.emit('rehearsal-passed', { upgrade, text, data });
        } else {
          const text = `rehearsal of upgrade "${r.upgrade}" FAILED on a copy of this node's state: ${r.reason ?? 'no reason given'}. The network still upgrades at its height: fix the binary or warn the chain's developers before then`;
          bus.emit('rehearsal-failed', { upgrade, text, data });
        }
      }
    });
  };
  read();
  const poll = pollStat(rehearsalsPath(layout), options.intervalMs ?? 2000, read, { persistent: false });
  return {
    close: () => {
      poll.close();
      off();
    },
  };
}
