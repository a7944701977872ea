/**
 * `chainvisor run` under systemd: when JOURNAL_STREAM names stderr (its device and inode), the lines are
 * plain text with their syslog priority first (`journalctl -p warning` filters), no colour, no time of
 * ours; a JOURNAL_STREAM that names something else leaves the JSON lines as they were.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { chainvisorCommand, makeHome, type TestHome } from '../support/home.js';

/** `chainvisor run start` with stderr a file; answers its exit code and what it wrote there. */
async function runToFile(
  t: TestHome,
  env: Record<string, string>,
  journalOf: (stat: fs.BigIntStats) => string,
): Promise<{ code: number | null; lines: string[] }> {
  const file = path.join(t.root, `stderr-${Date.now()}.log`);
  const fd = fs.openSync(file, 'w');
  const [program, args] = chainvisorCommand(['run', 'start']);
  const child = spawn(program, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...t.env, ...env, JOURNAL_STREAM: journalOf(fs.fstatSync(fd, { bigint: true })) },
    stdio: ['ignore', 'ignore', fd],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  fs.closeSync(fd);
  return {
    code,
    lines: fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== ''),
  };
}

const matching = (s: fs.BigIntStats): string => `${s.dev}:${s.ino}`;

describe('chainvisor run: log lines for the journal', () => {
  let t: TestHome;
  before(async () => {
    // The sign guard off: a warning at every start, beside the info lines.
    t = await makeHome({ CHAINVISOR_SIGN_GUARD: 'off' });
    await t.cliOk(['init', await t.fakeNode({ label: 'genesis', runMs: 200, exitCode: 3 })]);
  });
  after(() => t.cleanup());

  test('stderr is the journal: syslog priorities, plain text, no colour, no time of ours', async () => {
    const { code, lines } = await runToFile(t, {}, matching);
    assert.equal(code, 3, lines.join('\n'));
    for (const line of lines) assert.match(line, /^<[2-7]>/, `every line has its priority: ${line}`);
    const text = lines.join('\n');
    assert.ok(!text.includes('\x1b'), `no colour codes:\n${text}`);
    assert.doesNotMatch(text, /\[\d{1,2}:\d{2}|\d{4}-\d\d-\d\dT\d\d:|"time":/, 'no time of ours');
    assert.ok(
      lines.some((l) => l.startsWith('<4>WARN: CHAINVISOR_SIGN_GUARD=off')),
      `the warning is <4>:\n${text}`,
    );
    assert.ok(
      lines.some((l) => /^<6>INFO: starting node \{.*"event":"node-started"/.test(l)),
      `an info line is <6>, with its fields as the text format has them:\n${text}`,
    );
  });

  test('CHAINVISOR_LOG_FORMAT=text under the journal is the same: no colour codes, no time', async () => {
    const { lines } = await runToFile(t, { CHAINVISOR_LOG_FORMAT: 'text', COSMOVISOR_COLOR_LOGS: 'true' }, matching);
    assert.ok(lines.length > 0 && lines.every((l) => /^<[2-7]>/.test(l) && !l.includes('\x1b')), lines.join('\n'));
  });

  test('the report of a failure that stops chainvisor is an error to the journal (<3>)', async () => {
    const { code, lines } = await runToFile(t, { DAEMON_HOME: path.join(t.root, 'no-home') }, matching);
    assert.equal(code, 78, lines.join('\n'));
    assert.ok(
      lines.some((l) => l.startsWith('<3>chainvisor: error: ')),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => l.startsWith('<3>chainvisor: code: CHAINVISOR_')),
      lines.join('\n'),
    );
  });

  test('CHAINVISOR_LOG_FORMAT=json, or a JOURNAL_STREAM that is not stderr: JSON lines, as before', async () => {
    const other = (s: fs.BigIntStats): string => `${s.dev}:${s.ino + 1n}`;
    for (const [env, journal] of [
      [{ CHAINVISOR_LOG_FORMAT: 'json' }, matching],
      [{}, other],
    ] as const) {
      const { lines } = await runToFile(t, env, journal);
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.ok(
        parsed.some((l) => l.level === 40 && typeof l.time === 'number'),
        lines.join('\n'),
      );
    }
  });
});
