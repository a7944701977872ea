/**
 * The switch rehearsed in-process, on a scratch home, so that the switch that counts runs warm (#33).
 * The first run of a code path in a process pays for compiling it (V8 compiles each function at its
 * first call, and Node.js loads some of its own modules at first use), and an upgrade is usually the
 * first and only switch of its `run`: on a 2-core machine that was about 9 ms of a 24 ms switch
 * (bench:switch, cold against warm). The run loop asks for it only when an upgrade is coming (a binary
 * installed for an upgrade not yet applied, a plan scheduled on chain), never at rest.
 *
 * It walks what the switch walks, in order: the plan read from `data/upgrade-info.json` and judged, a
 * stand-in node stopped, the upgrade sequence (upgrade/compose.ts) with `pre-upgrade` run through a
 * standby, the stand-in started again through a standby, then the scratch removed. It never touches the
 * live home nor the node: its own folder in the system's temp folder, a stand-in program (a shell
 * script: `pre-upgrade` says "not implemented", otherwise it sleeps), no backup, no custom script, no
 * download, no node record, a private bus and a silent log. A failure only leaves the switch cold.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import type { Config } from '../config/index.js';
import { binaryPath, genesis, layoutFor } from '../home/layout/index.js';
import { logEvents } from '../shared/event-log.js';
import { createEventBus } from '../shared/events/index.js';
import { createLogger } from '../shared/log.js';
import { type Standby, type StandbyOptions, startStandby } from '../shared/proc/index.js';
import { Detector } from '../watcher/detector.js';
import { type NodeProcess, startNode } from './node-process.js';
import { runUpgrade } from './upgrade/index.js';

/** The stand-in for both binaries: `pre-upgrade` not implemented (exit 1); as a node, it waits to be stopped. */
const standIn = '#!/bin/sh\n[ "$1" = pre-upgrade ] && exit 1\nexec sleep 10\n';

/** What `ps` shows of the rehearsal's waiting shells (not the switch's `chainvisor-standby`). */
const title = 'chainvisor-warm-standby';

/** Resolves to whether the rehearsal went through to the new stand-in's start (it never throws). */
export async function warmSwitch(config: Config, signal: AbortSignal): Promise<boolean> {
  let scratch: string | undefined;
  const nodes: NodeProcess[] = [];
  const standbys: Standby[] = [];
  try {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-warm-'));
    const layout = layoutFor({ home: scratch, name: 'node' });
    const plan = { name: 'warm', height: 2, info: '' };
    const oldBinary = binaryPath(layout, genesis);
    const newBinary = binaryPath(layout, `upgrades/${plan.name}`);
    for (const binary of [oldBinary, newBinary]) {
      await fs.mkdir(path.dirname(binary), { recursive: true });
      await fs.writeFile(binary, standIn, { mode: 0o755 });
    }
    await fs.symlink(genesis, layout.currentLink);
    await fs.mkdir(layout.dataDir);
    await fs.writeFile(layout.upgradeInfoFile, JSON.stringify({ ...plan, time: '0001-01-01T00:00:00Z' }));
    const logger = createLogger({ disabled: true });
    const standby = (stdio: StandbyOptions['stdio']) => {
      const started = startStandby({ stdio, title });
      standbys.push(started);
      return started;
    };
    // A stand-in that cannot start (no /bin/sh in an image, a noexec temp folder) fails the rehearsal, never chainvisor.
    const track = (node: NodeProcess) => {
      node.exited.catch(() => undefined);
      nodes.push(node);
      return node;
    };
    const old = track(startNode(oldBinary, ['start'], logger));
    if (old.pid === undefined) return false;
    const settings: Config = {
      ...config,
      home: scratch,
      restartDelay: 0,
      unsafeSkipBackup: true,
      customPreUpgrade: '',
      allowDownloadBinaries: false,
      preUpgradeMaxRetries: 0,
    };
    // Detection: the file read and judged against `current` by the detector's own code.
    const due = await new Detector({ config: settings, layout, logger, args: [] }).dueFromFile();
    if (due === undefined) return false;
    signal.throwIfAborted();
    const events = createEventBus();
    logEvents(events, logger);
    const switched = await runUpgrade(due, {
      ctx: { config: settings, layout, logger, signal, events },
      delay: false,
      detected: { how: 'due' },
      stopNode: () => old.stop({ graceMs: 0, killAtZero: true }).catch(() => undefined),
      preUpgradeStandby: standby('pipe-output'),
    });
    // The new node's start, through a standby as after a real switch; stopped at once.
    const next = track(startNode(binaryPath(layout, switched.current.dir), ['start'], logger, undefined, standby('inherit')));
    await next.stop({ graceMs: 0, killAtZero: true });
    return true;
  } catch {
    // Only the speed of the switch that counts was at stake.
    return false;
  } finally {
    for (const waiting of standbys) waiting.dismiss();
    await Promise.allSettled(nodes.map((node) => node.stop({ graceMs: 0, killAtZero: true })));
    if (scratch !== undefined) await fs.rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}
