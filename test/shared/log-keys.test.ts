/**
 * No field of chainvisor's log lines is one of pino's own keys (`time`, `level`, `msg`, `pid`,
 * `hostname`): a second `time` made parsers keep the backup's time instead of the line's (issue #43).
 * The events whose data becomes log fields are checked against the list, and an upgrade run through
 * the real command — a restart after the halt that reuses its backup — writes no line with a key twice.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import type { AfterUpgrade, TwinCheckReport } from '../../src/shared/events/index.js';
import { plan } from '../support/fake-node.js';
import { makeHome, waitFor } from '../support/home.js';

const reserved = ['time', 'level', 'msg', 'pid', 'hostname'];

/** The keys of a JSON object's top level, in order, duplicates included (JSON.parse keeps only the last). */
function topLevelKeys(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const after = text.slice(end + 1).trimStart();
      if (depth === 1 && after.startsWith(':')) keys.push(JSON.parse(text.slice(i, end + 1)) as string);
      i = end;
    }
  }
  return keys;
}

test('the duplicate-key reader sees a key given twice', () => {
  assert.deepEqual(topLevelKeys('{"time":1,"a":{"time":"x"},"b":"t\\"ime","time":"2026"}'), ['time', 'a', 'b', 'time']);
});

test('the fields the after-upgrade and twin-check events put in log lines and webhooks are none of pino’s keys', () => {
  const after: Required<AfterUpgrade> = {
    upgrade: '',
    state: 'waiting',
    height: null,
    round: null,
    prevoteRatio: null,
    precommitRatio: null,
    ownPrevote: null,
    signed: null,
    seconds: null,
    since: '',
  };
  const twin: Required<TwinCheckReport> = {
    state: 'clear',
    checkedAt: '',
    rpc: null,
    fromHeight: null,
    toHeight: null,
    seenHeight: 0,
    localHeight: null,
    address: '',
    reason: '',
  };
  for (const key of [...Object.keys(after), ...Object.keys(twin)]) assert.ok(!reserved.includes(key), `${key} is a key pino writes itself`);
});

test('an upgrade that reuses its backup after a restart: every JSON log line has each key once, pino’s own as pino wrote them', async (t) => {
  const home = await makeHome();
  t.after(() => home.cleanup());
  const backups = path.join(home.root, 'backups');
  await fs.mkdir(backups);
  const env = { UNSAFE_SKIP_BACKUP: 'false', DAEMON_DATA_BACKUP_DIR: backups, CHAINVISOR_LOG_FORMAT: 'json' };
  await home.cliOk(['init', await home.fakeNode({ label: 'genesis', halt: { plan: plan('v2', 10), style: 'exit' } })]);
  // The first pre-upgrade fails (exit 80) after the backup; the restart reuses it.
  await home.cliOk(['add-upgrade', 'v2', await home.fakeNode({ label: 'v2', preUpgrade: [30, 0] })]);
  await fs.mkdir(path.join(home.home, 'data'), { recursive: true });
  await fs.writeFile(path.join(home.home, 'data', 'state.db'), 'state');
  assert.equal((await home.cli(['run', 'start'], env)).exitCode, 80);
  // The restart reuses the backup and starts v2, which runs until chainvisor is asked to stop.
  const run = home.spawn(['run', 'start'], env);
  await waitFor(async () => (await home.journalLines()).some((l) => l.startsWith('v2 start')), 'v2 started');
  run.kill('SIGTERM');
  const second = await run;

  const lines = second.stderr.split('\n').filter((l) => l.startsWith('{'));
  assert.ok(lines.length >= 5, second.stderr);
  for (const line of lines) {
    const keys = topLevelKeys(line);
    assert.deepEqual(
      keys.filter((k, i) => keys.indexOf(k) !== i),
      [],
      `a key given twice: ${line}`,
    );
    const parsed = JSON.parse(line) as Record<string, unknown>;
    assert.equal(typeof parsed.time, 'number', line);
    assert.equal(typeof parsed.level, 'number', line);
    assert.equal(typeof parsed.msg, 'string', line);
    // pino's base is replaced by { module }: it writes no pid nor hostname, and no field of ours is called so.
    assert.ok(!('pid' in parsed) && !('hostname' in parsed), line);
  }
  const reused = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => /reusing the backup made for upgrade/.test(String(l.msg)));
  assert.ok(reused, second.stderr);
  assert.match(String(reused.madeAt), /^\d{4}-\d\d-\d\dT/, 'the backup’s time is its own field');
});
