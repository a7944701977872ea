/**
 * The switch runs `pre-upgrade` and the new node in shells forked while the old node ran (src/shared/proc/standby.ts):
 * seen from outside, by the processes' start times, their parent and their open files.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { isProcessAlive } from '../../src/shared/proc/index.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';

/** Fields of /proc/<pid>/stat after the command name: [0] is field 3 (state), [1] the parent, [19] the start time. */
async function statFields(pid: number): Promise<string[] | undefined> {
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The waiting standbys among `parent`'s children. */
async function standbysOf(parent: number): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const fields = await statFields(pid);
    if (fields?.[1] !== String(parent)) continue;
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes('chainvisor-standby')) found.push(pid);
  }
  return found;
}

const uptimeTicks = `$(cut -d' ' -f1 /proc/uptime | tr -d .)`;
const startTicks = `$(s=$(cat /proc/$$/stat); s=\${s##*) }; set -- $s; shift 19; echo $1)`;

describe('chainvisor run: the switch uses processes forked ahead', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  let t: TestHome;
  let trigger: string;
  beforeEach(async () => {
    t = await makeHome({ DAEMON_SHUTDOWN_GRACE: '5s' });
    trigger = path.join(t.root, 'halt-now');
    await fs.mkdir(t.binDir, { recursive: true });
    // Halts (writes the plan and stays up) once the test says so.
    const genesis = path.join(t.binDir, 'genesis');
    await fs.writeFile(
      genesis,
      [
        '#!/bin/sh',
        '[ "$1" = pre-upgrade ] && exit 1',
        `while [ ! -e '${trigger}' ]; do sleep 0.05; done`,
        'mkdir -p "$DAEMON_HOME/data"',
        `echo "halt ${uptimeTicks} parent $PPID" >> '${t.journal}'`,
        `printf '%s' '{"name":"v2","height":10}' > "$DAEMON_HOME/data/upgrade-info.json"`,
        'exec sleep 60',
      ].join('\n'),
      { mode: 0o755 },
    );
    const v2 = path.join(t.binDir, 'v2');
    await fs.writeFile(
      v2,
      [
        '#!/bin/sh',
        `[ "$1" = pre-upgrade ] && { echo "pre-upgrade forked ${startTicks} parent $PPID" >> '${t.journal}'; exit 0; }`,
        `fd3=closed; [ -e /proc/$$/fd/3 ] && fd3=open`,
        `echo "v2 forked ${startTicks} parent $PPID fd3 $fd3 run-id \${CHAINVISOR_RUN_ID:+set} args $*" >> '${t.journal}'`,
        'exit 0',
      ].join('\n'),
      { mode: 0o755 },
    );
    await t.cliOk(['init', genesis]);
    await t.cliOk(['add-upgrade', 'v2', v2]);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  /** The switch as the programs journaled it, each line as words: the halt, pre-upgrade, the new node. */
  async function journaled(): Promise<{ halt: string[]; pre: string[]; node: string[] }> {
    const lines = await t.journalLines();
    const byFirst = new Map(lines.map((line) => [line.split(' ')[0] as string, line.split(' ')]));
    const [halt, pre, node] = [byFirst.get('halt'), byFirst.get('pre-upgrade'), byFirst.get('v2')];
    assert.ok(halt && pre && node, lines.join('\n'));
    return { halt, pre, node };
  }

  test('pre-upgrade and the new node run in processes forked before the halt: children of chainvisor, fd 3 closed', async () => {
    const run = t.spawn(['run', 'start', '--flag=a b']);
    const supervisor = run.pid as number;
    await waitFor(async () => (await standbysOf(supervisor)).length === 2, 'two standbys wait beside the node');
    const standbys = await standbysOf(supervisor);
    await fs.writeFile(trigger, '');
    const r = await run;
    assert.equal(r.exitCode, 0, r.all);

    const { halt, pre, node } = await journaled();
    assert.equal(halt[3], String(supervisor), 'the old node was a child of chainvisor');
    assert.ok(Number(pre[2]) < Number(halt[1]), `pre-upgrade's process was forked (tick ${pre[2]}) before the halt (tick ${halt[1]})`);
    assert.ok(Number(node[2]) < Number(halt[1]), `the new node's process was forked (tick ${node[2]}) before the halt (tick ${halt[1]})`);
    assert.equal(pre[4], String(supervisor), 'pre-upgrade is a child of chainvisor');
    assert.deepEqual(node.slice(3), ['parent', String(supervisor), 'fd3', 'closed', 'run-id', 'set', 'args', 'start', '--flag=a', 'b']);
    assert.equal(await t.current(), 'upgrades/v2');
    for (const pid of standbys) assert.equal(await isProcessAlive(pid), false, `standby ${pid} is gone`);
  });

  test('standbys killed before the halt: the switch forks its programs as before', async () => {
    const run = t.spawn(['run', 'start']);
    const supervisor = run.pid as number;
    await waitFor(async () => (await standbysOf(supervisor)).length === 2, 'two standbys wait beside the node');
    for (const pid of await standbysOf(supervisor)) process.kill(pid, 'SIGKILL');
    await waitFor(async () => (await standbysOf(supervisor)).length === 0, 'the standbys are gone');
    await fs.writeFile(trigger, '');
    const r = await run;
    assert.equal(r.exitCode, 0, r.all);

    const { halt, pre, node } = await journaled();
    assert.ok(Number(pre[2]) >= Number(halt[1]), 'pre-upgrade was forked after the halt');
    assert.ok(Number(node[2]) >= Number(halt[1]), 'the new node was forked after the halt');
    assert.equal(node[4], String(supervisor));
    assert.equal(await t.current(), 'upgrades/v2');
  });

  test('a new binary that is not a program for this machine: pre-upgrade fails (80) with the reason in the log, current unchanged', async () => {
    const installed = path.join(t.home, 'cosmovisor/upgrades/v2/bin/simd');
    await fs.writeFile(installed, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, ...new Array(56).fill(0)]), { mode: 0o755 });
    const run = t.spawn(['run', 'start']);
    await waitFor(async () => (await standbysOf(run.pid as number)).length === 2, 'two standbys wait beside the node');
    await fs.writeFile(trigger, '');
    const r = await run;
    assert.equal(r.exitCode, 80, r.all);
    assert.match(r.all ?? '', /pre-upgrade failed: it exited 12[67], the code of a program that could not be run/);
    assert.match(r.all ?? '', /Exec format error/, "the shell's reason, copied from pre-upgrade's output");
    assert.equal(await t.current(), 'genesis');
  });

  test('a binary gone between pre-upgrade and the node start: the exit 127 is reported as a program that could not be run', async () => {
    const installed = path.join(t.home, 'cosmovisor/upgrades/v2/bin/simd');
    await fs.writeFile(installed, '#!/bin/sh\n[ "$1" = pre-upgrade ] && { rm -f "$0"; exit 0; }\nexit 0\n', { mode: 0o755 });
    const run = t.spawn(['run', 'start']);
    await waitFor(async () => (await standbysOf(run.pid as number)).length === 2, 'two standbys wait beside the node');
    await fs.writeFile(trigger, '');
    const r = await run;
    assert.equal(r.exitCode, 127, r.all);
    assert.match(r.all ?? '', /not found/, "the shell's reason");
    assert.match(r.all ?? '', /the node exited 127, the code of a program that could not be run/);
  });

  test('chainvisor stopped with the node: its waiting standbys end too, having run nothing', async () => {
    const run = t.spawn(['run', 'start']);
    const supervisor = run.pid as number;
    await waitFor(async () => (await standbysOf(supervisor)).length === 2, 'two standbys wait beside the node');
    const standbys = await standbysOf(supervisor);
    run.kill('SIGTERM');
    const r = await run;
    assert.equal(r.exitCode, 143, r.all);
    for (const pid of standbys) await waitFor(async () => !(await isProcessAlive(pid)), `standby ${pid} ends`, 5000);
    assert.deepEqual(await t.journalLines(), [], 'neither pre-upgrade nor any node ran');
  });
});
