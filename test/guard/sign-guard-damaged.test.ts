/**
 * The sign guard at its edges (issue #31), through the real command: chainvisor's record of what was
 * signed (`cosmovisor/.chainvisor/sign-state.json`) in any shape but the one chainvisor writes refuses
 * the start (84), never reads as "nothing signed"; any string is a chain id, `__proto__` included; the
 * validator's `priv_validator_state.json` is read as CometBFT reads it — an int64 height, an int32
 * round, a step of 0–3 — and anything else, a parser-breaking nesting included, is unreadable (84).
 * Each case as an attacker, a broken disk or a careless operator would leave the file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { type CliResult, makeHome, type TestHome } from '../support/home.js';

function stateJson(height: number | string, round = 0, step = 3): string {
  return JSON.stringify({ height: String(height), round, step, signature: 'c2ln', signbytes: 'ab' });
}

/** The record as chainvisor writes it, with `entry` for chain guard-1 (height 100 by default). */
function recordJson(entry: Record<string, unknown> = {}): string {
  const full = { ...(JSON.parse(entryJson('100')) as object), ...entry };
  return JSON.stringify({ chains: { 'guard-1': full } }, null, 2);
}

function entryJson(height: string): string {
  return JSON.stringify({ height, round: 0, step: 3, time: '2026-01-01T00:00:00.000Z', file: '/h/data/priv_validator_state.json' });
}

/** `{"height": {"a": {"a": … 1 …}}}`, `depth` objects deep. */
function nested(depth: number): string {
  return `{"height":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)},"round":0,"step":0}`;
}

/** What sits at a path: text, or something that is not a regular file. */
type Content = string | { fifo: true } | { link: string } | { folder: true };

async function put(file: string, content: Content): Promise<void> {
  await fs.rm(file, { recursive: true, force: true });
  await fs.mkdir(path.dirname(file), { recursive: true });
  if (typeof content === 'string') await fs.writeFile(file, content);
  else if ('fifo' in content) spawnSync('mkfifo', [file]);
  else if ('link' in content) await fs.symlink(content.link, file);
  else await fs.mkdir(file);
}

function assertRefused(r: CliResult, code: string, about: RegExp): void {
  assert.equal(r.exitCode, 84, r.stderr);
  assert.match(r.stderr, new RegExp(`code: ${code}`));
  assert.match(r.stderr, about);
  assert.match(r.stderr, /hint: \S/);
  assert.doesNotMatch(r.stderr, /unexpected error|this is a bug|RangeError|at .*\.js:\d+/);
}

describe('the sign guard and damaged files', () => {
  let t: TestHome;
  const stateFile = () => path.join(t.home, 'data', 'priv_validator_state.json');
  const recordFile = () => path.join(t.home, 'cosmovisor', '.chainvisor', 'sign-state.json');
  const record = async () => JSON.parse(await fs.readFile(recordFile(), 'utf8'));
  const starts = async () => (await t.journalLines()).filter((l) => l.startsWith('genesis start')).length;
  const genesis = (chainId: string) => fs.writeFile(path.join(t.home, 'config', 'genesis.json'), JSON.stringify({ chain_id: chainId }));

  beforeEach(async () => {
    t = await makeHome();
    await fs.mkdir(path.join(t.home, 'config'), { recursive: true });
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await genesis('guard-1');
    // The node signs up to the height in SIGN_TO (when set) as it starts, then runs a moment and exits 0.
    const node = await t.fakeNode({
      label: 'genesis',
      runMs: 100,
      onStart: `[ -n "$SIGN_TO" ] && printf '{"height":"%s","round":0,"step":3}' "$SIGN_TO" > "$DAEMON_HOME/data/priv_validator_state.json"`,
    });
    await t.cliOk(['init', node]);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  test('the reproduction: record 100, a state put back at 50 is refused, and still is once {} is written into the record', async () => {
    await fs.writeFile(stateFile(), stateJson(0, 0, 0));
    assert.equal((await t.cli(['run', 'start'], { SIGN_TO: '100' })).exitCode, 0);
    assert.equal((await record()).chains['guard-1'].height, '100');
    await fs.writeFile(stateFile(), stateJson(50));
    assertRefused(await t.cli(['run', 'start']), 'CHAINVISOR_SIGN_STATE_BEHIND', /at height 50 round 0 step 3, behind height 100/);
    await fs.writeFile(recordFile(), '{}');
    const r = await t.cli(['run', 'start']);
    assertRefused(
      r,
      'CHAINVISOR_SIGN_STATE_UNREADABLE',
      /cannot read chainvisor's record of what this validator has signed, .*sign-state\.json: it is not the shape chainvisor writes/,
    );
    assert.match(r.stderr, /hint: put back the record as chainvisor wrote it/);
    assert.equal(await starts(), 1, 'the node was not started on the older state');
    assert.equal(await fs.readFile(recordFile(), 'utf8'), '{}', 'the damaged record is left for the operator to see');
  });

  // The state at 50 is behind the record's 100: every one of these would start the node if read as "nothing signed".
  const damagedRecords: [string, Content][] = [
    // The issue's shapes.
    ['{}', '{}'],
    ['[]', '[]'],
    ['{"chains": null}', '{"chains": null}'],
    ['{"chains": []}', '{"chains": []}'],
    ['{"chains": "x"}', '{"chains": "x"}'],
    ['{"chains": 5}', '{"chains": 5}'],
    ['a __proto__ key holding the chains', `{"__proto__": ${recordJson()}}`],
    // Beyond them.
    ['a field beside chains', recordJson().replace(/\n}$/, ',\n  "more": 1\n}')],
    ['an entry without its time', JSON.stringify({ chains: { 'guard-1': { height: '100', round: 0, step: 3, file: '/f' } } })],
    ['an entry with a field more', recordJson({ note: 'x' })],
    ['a round as a string', recordJson({ round: '0' })],
    ['a height as a number', recordJson({ height: 100 })],
    ['a height of 2^63', recordJson({ height: '9223372036854775808' })],
    ['a negative height', recordJson({ height: '-1' })],
    ['a step of 4', recordJson({ step: 4 })],
    ['a fractional round', recordJson({ round: 0.5 })],
    ['an entry that is null', '{"chains": {"guard-1": null}}'],
    ['the chain listed twice, the lower last', `{"chains": {"guard-1": ${entryJson('100')}, "guard-1": ${entryJson('1')}}}`],
    ['null', 'null'],
    ['zero bytes', ''],
    ['only white space', '  \n'],
    ['cut short by a broken disk', recordJson().slice(0, 40)],
    ['nested 100 000 deep', `{"chains": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
    ['a FIFO', { fifo: true }],
    ['a link to /dev/zero', { link: '/dev/zero' }],
    ['a folder', { folder: true }],
  ];
  for (const [name, content] of damagedRecords) {
    test(`a record that is ${name}: 84, the node not started`, async () => {
      await fs.writeFile(stateFile(), stateJson(50));
      await put(recordFile(), content);
      const r = await t.cli(['run', 'start']);
      assertRefused(r, 'CHAINVISOR_SIGN_STATE_UNREADABLE', /sign-state\.json/);
      assert.equal(await starts(), 0);
    });
  }

  for (const chainId of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    test(`a chain id ${chainId} is a chain id like any other: recorded, read back, guarded`, async () => {
      await genesis(chainId);
      await fs.writeFile(stateFile(), stateJson(0, 0, 0));
      const first = await t.cli(['run', 'start'], { SIGN_TO: '100' });
      assert.equal(first.exitCode, 0, first.stderr);
      const chains = (await record()).chains;
      assert.ok(Object.hasOwn(chains, chainId), `the record has its own entry for ${chainId}`);
      assert.equal(chains[chainId].height, '100');
      await fs.writeFile(stateFile(), stateJson(50));
      assertRefused(
        await t.cli(['run', 'start']),
        'CHAINVISOR_SIGN_STATE_BEHIND',
        new RegExp(`behind height 100 round 0 step 3, which this home has signed on chain ${chainId}`),
      );
      await fs.writeFile(stateFile(), stateJson(101));
      assert.equal((await t.cli(['run', 'start'])).exitCode, 0);
      assert.equal((await record()).chains[chainId].height, '101');
      assert.equal(await starts(), 2);
    });
  }

  test('a height of 2^63 is unreadable and never recorded: a real state at 101 starts afterwards', async () => {
    await fs.writeFile(stateFile(), stateJson('9223372036854775808'));
    assertRefused(await t.cli(['run', 'start']), 'CHAINVISOR_SIGN_STATE_UNREADABLE', /height: above the largest height CometBFT has/);
    await assert.rejects(fs.access(recordFile()), { code: 'ENOENT' }, 'nothing recorded');
    await fs.writeFile(stateFile(), stateJson(101));
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal((await record()).chains['guard-1'].height, '101');
  });

  test('the largest int64 height is a height: started and recorded', async () => {
    await fs.writeFile(stateFile(), stateJson('9223372036854775807'));
    const r = await t.cli(['run', 'start']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal((await record()).chains['guard-1'].height, '9223372036854775807');
  });

  // The record at 100 stays; each state file is unreadable: refused before the comparison.
  const unreadableStates: [string, Content, RegExp][] = [
    ['a height nested 100 000 deep', nested(100_000), /nested deeper than/],
    ['a height of 2^64', stateJson('18446744073709551616'), /above the largest height/],
    ['a height number past 2^53 (not exact)', '{"height": 9007199254740993, "round": 0, "step": 3}', /\bheight\b/],
    ['a round of 2^31', stateJson(100, 2 ** 31), /\bround\b/],
    ['a round of 1e300', '{"height": "120", "round": 1e300, "step": 3}', /\bround\b/],
    ['a round of null', '{"height": "120", "round": null, "step": 3}', /\bround\b/],
    ['a step of null', '{"height": "120", "round": 0, "step": null}', /\bstep\b/],
    ['a negative height', stateJson('-1'), /\bheight\b/],
    ['a negative round', stateJson(120, -1), /\bround\b/],
    ['a fractional round', stateJson(120, 1.5), /\bround\b/],
    ['a round as a string', '{"height": "120", "round": "0", "step": 3}', /\bround\b/],
    ['a step of 4', stateJson(120, 0, 4), /\bstep\b/],
    ['a hexadecimal height', stateJson('0x10'), /\bheight\b/],
    ['an empty height', stateJson(''), /\bheight\b/],
    ['a list', '[]', /./],
    ['zero bytes', '', /not JSON/],
    ['cut short', '{"height": "12', /not JSON/],
    ['a FIFO', { fifo: true }, /FIFO/],
    ['a link to /dev/zero', { link: '/dev/zero' }, /character device/],
    ['a folder', { folder: true }, /folder/],
  ];
  for (const [name, content, why] of unreadableStates) {
    test(`a signing state with ${name}: 84 unreadable, the node not started`, async () => {
      await put(recordFile(), recordJson());
      await put(stateFile(), content);
      const r = await t.cli(['run', 'start']);
      assertRefused(r, 'CHAINVISOR_SIGN_STATE_UNREADABLE', /cannot read the validator's signing state .*priv_validator_state\.json/);
      assert.match(r.stderr.split('\n').find((l) => l.startsWith('chainvisor: error:')) ?? '', why, 'the error names what is wrong');
      assert.equal(await starts(), 0);
      assert.equal((await record()).chains['guard-1'].height, '100', 'the record is unchanged');
    });
  }

  // Read as CometBFT reads them (Go keeps the last of two equal keys and ignores other fields): the guard compares what the node will load.
  const readAsCometBft: [string, string, 'refused' | 'started'][] = [
    ['the height twice, 100 then 50', '{"height": "100", "height": "50", "round": 0, "step": 3}', 'refused'],
    ['the height twice, 50 then 120', '{"height": "50", "height": "120", "round": 0, "step": 3}', 'started'],
    ['a __proto__ key claiming 999 beside a height of 50', '{"__proto__": {"height": "999"}, "height": "50", "round": 0, "step": 3}', 'refused'],
    ['a height as a JSON number, 120', '{"height": 120, "round": 0, "step": 3}', 'started'],
    ['no round and no step, height 120', '{"height": "120"}', 'started'],
  ];
  for (const [name, text, outcome] of readAsCometBft) {
    test(`a signing state with ${name}: ${outcome}`, async () => {
      await put(recordFile(), recordJson());
      await put(stateFile(), text);
      const r = await t.cli(['run', 'start']);
      if (outcome === 'refused') assertRefused(r, 'CHAINVISOR_SIGN_STATE_BEHIND', /behind height 100/);
      else assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(await starts(), outcome === 'started' ? 1 : 0);
    });
  }
});
