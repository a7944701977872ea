import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { isProcessAlive, processStartToken, startStandby } from '../../../src/shared/proc/index.js';
import { waitFor } from '../../support/home.js';

const procIndex = path.resolve(fileURLToPath(import.meta.url), '../../../../src/shared/proc/index.js');

async function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { code, signal };
}

describe('standby: a program forked ahead, run on demand', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  let root: string;
  let marker: string;
  /** A program that records its pid, arguments, one variable and whether fd 3 is open, then exits 5. */
  let program: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-standby-'));
    marker = path.join(root, 'ran');
    program = path.join(root, 'program');
    await fs.writeFile(
      program,
      [
        '#!/bin/sh',
        `{ echo "pid $$"; echo "args $*"; echo "var \${STANDBY_VAR-unset}"; [ -e /proc/$$/fd/3 ] && echo "fd3 open" || echo "fd3 closed"; } > '${marker}'`,
        'echo "to stdout"; echo "to stderr" >&2',
        'exit 5',
      ].join('\n'),
      { mode: 0o755 },
    );
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  test('a taken standby runs the program in its own pid, with its arguments and environment, fd 3 closed, output piped', async () => {
    const env = { ...process.env, STANDBY_VAR: 'from the standby' };
    const standby = startStandby({ stdio: 'pipe-output', env });
    assert.ok(standby.pid, 'the shell started');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const cmdline = (await fs.readFile(`/proc/${standby.pid}/cmdline`, 'utf8')).split('\0');
    assert.equal(cmdline.at(-2), 'chainvisor-standby', 'the waiting shell shows its name last…');
    assert.ok(!cmdline.includes('start'), '…and nothing of the program');
    await assert.rejects(fs.access(marker), 'nothing runs before take()');
    const child = standby.take(program, ['start', 'two words', ''], env);
    assert.ok(child, 'taken');
    const closed = once(child, 'close');
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d));
    child.stderr?.on('data', (d: Buffer) => (err += d));
    assert.deepEqual(await exited(child), { code: 5, signal: null }, "the program's own exit code");
    await closed;
    assert.equal(child.pid, standby.pid);
    assert.deepEqual((await fs.readFile(marker, 'utf8')).trim().split('\n'), [
      `pid ${standby.pid}`,
      'args start two words ',
      'var from the standby',
      'fd3 closed',
    ]);
    assert.equal(out, 'to stdout\n');
    assert.equal(err, 'to stderr\n');
    assert.equal(standby.usable, false, 'one use');
    assert.equal(standby.take(program, ['start', 'two words', ''], env), undefined);
  });

  test('the program keeps the start time of the shell, forked before it was needed', async () => {
    const standby = startStandby({ stdio: 'pipe-output' });
    // On Linux the start token is the start time in clock ticks since boot.
    const forked = Number(await processStartToken(standby.pid as number));
    await new Promise((resolve) => setTimeout(resolve, 120));
    const child = standby.take(program, []);
    assert.ok(child);
    await exited(child);
    const ranAt = Number((await fs.readFile('/proc/uptime', 'utf8')).split(' ')[0]) * 100;
    assert.match(await fs.readFile(marker, 'utf8'), new RegExp(`pid ${standby.pid}`));
    assert.ok(ranAt - forked >= 10, `the process was forked ${ranAt - forked} ticks before the program ran`);
  });

  test('a dismissed standby exits 0 and runs nothing', async () => {
    const standby = startStandby({ stdio: 'pipe-output' });
    const pid = standby.pid as number;
    standby.dismiss();
    await waitFor(async () => !(await isProcessAlive(pid)), 'the shell exits', 5000);
    assert.equal(standby.usable, false);
    assert.equal(standby.take(program, []), undefined);
    await assert.rejects(fs.access(marker), 'the program never ran');
  });

  test('another environment, a relative path, a path or an argument with a newline: not taken, and the shell exits', async () => {
    const env = { ...process.env };
    for (const [file, args, takeEnv] of [
      [program, [], { ...env }],
      ['bins/program', [], env],
      [`${program}\nsecond line`, [], env],
      [program, ['one\ntwo'], env],
    ] as const) {
      const standby = startStandby({ stdio: 'pipe-output', env });
      assert.equal(standby.fits(env), true);
      assert.equal(standby.take(file, args, takeEnv), undefined, `${JSON.stringify(file)} ${JSON.stringify(args)}`);
      await waitFor(async () => !(await isProcessAlive(standby.pid as number)), 'the shell exits', 5000);
    }
    await assert.rejects(fs.access(marker), 'the program never ran');
  });

  test('a standby killed before its use is not used', async () => {
    const standby = startStandby({ stdio: 'pipe-output' });
    process.kill(standby.pid as number, 'SIGTERM');
    await waitFor(async () => !standby.usable, 'the standby sees its shell gone', 5000);
    assert.equal(standby.take(program, []), undefined);
    await assert.rejects(fs.access(marker));
  });

  test("a standby that died moments ago (not yet reaped) is not used: its exit would pass for the program's", async () => {
    const standby = startStandby({ stdio: 'pipe-output' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    process.kill(standby.pid as number, 'SIGKILL');
    // The event loop is held, so the exit is not seen yet: only a look at the process itself tells.
    const until = Date.now() + 100;
    while (Date.now() < until) {
      // busy
    }
    assert.equal(standby.usable, true, 'the exit event has not been handled');
    assert.equal(standby.take(program, []), undefined);
    await assert.rejects(fs.access(marker));
  });

  test('an environment a shell would not pass on unchanged gets no standby; one without PWD gets none added', async () => {
    const { PWD: _pwd, ...noPwd } = process.env;
    assert.equal(startStandby({ stdio: 'pipe-output', env: { ...noPwd, 'ODD-NAME': 'x' } }).usable, false, 'a name that is not a shell name');
    assert.equal(startStandby({ stdio: 'pipe-output', env: { ...noPwd, PWD: root } }).usable, false, 'a PWD that is not the working folder');
    const standby = startStandby({ stdio: 'pipe-output', env: noPwd });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const child = standby.take('/usr/bin/env', ['-0'], noPwd);
    assert.ok(child);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d));
    const closed = once(child, 'close');
    await exited(child);
    await closed;
    const shown = Object.fromEntries(
      out
        .split('\0')
        .filter((entry) => entry !== '')
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
    // bash as /bin/sh adds SHLVL=0 when it is not set (README); dash adds nothing.
    if (noPwd.SHLVL === undefined && (await fs.realpath('/bin/sh')).endsWith('bash')) delete shown.SHLVL;
    assert.deepEqual(shown, noPwd, 'the program gets exactly the environment given');
  });

  test('out of file descriptors: no standby, and no exception', async () => {
    const code = `const fs = await import('node:fs'); const { startStandby } = await import(${JSON.stringify(procIndex)});
      try { for (;;) fs.openSync('/dev/null', 'r'); } catch {}
      let result; try { const s = startStandby({ stdio: 'pipe-output' }); result = s.usable ? 'usable' : 'gone'; } catch (e) { result = 'threw ' + e.message; }
      fs.writeSync(1, result);`;
    const owner = spawn('/bin/sh', ['-c', 'ulimit -n 64 && exec "$0" --input-type=module -e "$1"', process.execPath, code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    owner.stdout?.on('data', (d: Buffer) => (out += d));
    const closed = once(owner, 'close');
    assert.deepEqual(await exited(owner), { code: 0, signal: null });
    await closed;
    assert.equal(out, 'gone');
  });

  test('a program the shell cannot run exits 126 or 127 with the reason on its stderr', async () => {
    const notAProgram = path.join(root, 'not-a-program');
    await fs.writeFile(notAProgram, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, ...new Array(56).fill(0)]), { mode: 0o755 });
    const standby = startStandby({ stdio: 'pipe-output' });
    const child = standby.take(notAProgram, ['pre-upgrade']);
    assert.ok(child);
    const closed = once(child, 'close');
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err += d));
    const status = await exited(child);
    await closed;
    assert.ok(status.code === 126 || status.code === 127, `exit ${status.code}`);
    assert.match(err, /not-a-program/);
  });

  test('when chainvisor is killed (SIGKILL), its waiting standby exits without running anything', async () => {
    const owner = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { startStandby } = await import(${JSON.stringify(procIndex)}); const s = startStandby({ stdio: 'inherit' }); console.log(s.pid); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(owner.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
    const pid = Number(line.toString().trim());
    assert.ok(await isProcessAlive(pid), 'the standby waits');
    owner.kill('SIGKILL');
    await exited(owner);
    await waitFor(async () => !(await isProcessAlive(pid)), 'the orphaned standby exits', 5000);
    await assert.rejects(fs.access(marker));
  });

  test('a waiting standby does not keep its owner alive', async () => {
    const owner = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { startStandby } = await import(${JSON.stringify(procIndex)}); startStandby({ stdio: 'pipe-output' }); startStandby({ stdio: 'inherit' });`,
      ],
      { stdio: 'ignore' },
    );
    const timer = setTimeout(() => owner.kill('SIGKILL'), 10_000);
    const status = await exited(owner);
    clearTimeout(timer);
    assert.deepEqual(status, { code: 0, signal: null }, 'the owner ended on its own');
  });
});
