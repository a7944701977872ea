import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseArgs } from '../../src/cli/args.js';

const spec = { flags: { home: 'string', 'unsafe-skip-upgrades': 'list', yes: 'boolean', 'upgrade-height': 'string' }, aliases: { y: 'yes' } } as const;

test('flags with spaces or =, booleans, aliases, positionals', () => {
  const parsed = parseArgs(['v2', '--home', '/h', '-y', '--upgrade-height=-5', 'extra'], spec);
  assert.deepEqual(parsed.positionals, ['v2', 'extra']);
  assert.equal(parsed.strings.home, '/h');
  assert.equal(parsed.strings['upgrade-height'], '-5');
  assert.equal(parsed.booleans.yes, true);
});

test('--unsafe-skip-upgrades takes space-separated heights (as cosmovisor reads them) and comma lists', () => {
  assert.deepEqual(parseArgs(['--unsafe-skip-upgrades', '10', '20', '--home', 'h'], spec).lists['unsafe-skip-upgrades'], ['10', '20']);
  assert.deepEqual(parseArgs(['--unsafe-skip-upgrades=10,20'], spec).lists['unsafe-skip-upgrades'], ['10', '20']);
});

test('unknown flags and missing values are usage errors', () => {
  assert.throws(() => parseArgs(['--nope'], spec), /unknown flag: --nope/);
  assert.throws(() => parseArgs(['--home'], spec), /flag needs an argument: --home/);
  assert.throws(() => parseArgs(['--yes=maybe'], spec), /expected true or false/);
});
