/**
 * Every command `chainvisor --help` lists (run excepted: its arguments are the node's), misused each way
 * an operator can (issue #33): an unknown option, a stray argument, an option missing its value, a value
 * that does not parse, a flag given a value, a global option after the command. Each is exit 64 with one
 * line saying what was wrong, the command's usage line and `chainvisor help <command>`; never a stack
 * trace, and nothing done. The commands, their positionals and options are read from `--help` and
 * `help <command>` themselves, so a new command or option is covered without touching this file.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import { makeHome, type TestHome } from '../support/home.js';

/**
 * A value that no option with this placeholder accepts. A free-text value (a path, an address) cannot
 * fail to parse: its misuse is the empty value, tried for every option. A new placeholder must be added
 * here, which is the point: someone decides what a wrong value for it is.
 */
const wrongValues: Record<string, string | null> = {
  '<H>': 'twelve',
  '<id>': 'twelve',
  N: 'many',
  '<duration>': 'soon',
  '<name>:<path>:<height>,…': 'not-a-list',
  '<file>': null,
  '<folder>': null,
  '<binary>': null,
  '<name>': null,
  '<valoper-address>': null,
  "'<json or url>'": null,
};

interface CommandShape {
  name: string;
  usage: string;
  /** Placeholders of the positionals, and how many are required. */
  positionals: string[];
  required: number;
  options: { name: string; value: string | undefined }[];
}

/** What `chainvisor help <name>` says the command takes: the Usage line and the Options table. */
function shapeOf(name: string, help: string): CommandShape {
  const usage = /^Usage: (.+)$/m.exec(help)?.[1];
  assert.ok(usage, `no Usage line in 'chainvisor help ${name}':\n${help}`);
  const words = usage.split(' ').slice(2);
  const positionals: string[] = [];
  let required = 0;
  for (const word of words) {
    const m = /^(\[)?<([^>]+)>\]?$/.exec(word);
    if (m === null) break;
    positionals.push(m[2] as string);
    if (m[1] === undefined) required++;
  }
  const table = help.split(/^Options:$/m)[1] ?? '';
  // `  -o, --output json|text   …`: the value is the words after the option, up to two spaces.
  const options = [...table.matchAll(/^ {2}(?:-\w, )?--([\w-]+)(?: ((?:\S+ )*?\S+))?(?: {2,}|$)/gm)].map((m) => ({ name: m[1] as string, value: m[2] }));
  return { name, usage, positionals, required, options };
}

describe('every command answers a misuse with its usage: exit 64, never a stack trace', () => {
  let t: TestHome;
  let shapes: CommandShape[];
  before(async () => {
    t = await makeHome({}, { bin: true });
    const top = await t.cliOk(['--help']);
    const list = top.stdout.split(/^Commands:$/m)[1]?.split(/\n\n/)[0] ?? '';
    const names = [...list.matchAll(/^ {2}([a-z][\w-]*) /gm)].map((m) => m[1] as string).filter((n) => n !== 'run');
    shapes = [];
    for (const name of names) shapes.push(shapeOf(name, (await t.cliOk(['help', name])).stdout));
  });
  after(async () => {
    await t.cleanup();
  });

  /** The command run with `args`: a usage error saying `what`, its usage line and where its help is. */
  async function assertUsage(shape: CommandShape, args: string[], what: RegExp): Promise<void> {
    const r = await t.cli([shape.name, ...args]);
    const shown = `chainvisor ${[shape.name, ...args].join(' ')}:\n${r.stderr}`;
    assert.equal(r.exitCode, 64, shown);
    assert.doesNotMatch(r.stderr, /this is a bug|^\s+at /m, shown);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 4, shown);
    assert.match(lines[0] as string, /^chainvisor: error: /, shown);
    assert.match(lines[0] as string, what, shown);
    assert.equal(lines[1], `chainvisor: usage: ${shape.usage}`, shown);
    assert.match(lines[2] as string, new RegExp(`^chainvisor: hint: .*'chainvisor help ${shape.name}'`), shown);
    assert.equal(lines[3], 'chainvisor: code: CHAINVISOR_USAGE', shown);
  }

  test('the commands are read from --help, with their usage and options', () => {
    const names = shapes.map((s) => s.name);
    for (const known of ['init', 'add-upgrade', 'add-batch-upgrade', 'show-upgrade-info', 'version', 'config', 'check-plan', 'status'])
      assert.ok(names.includes(known), names.join(' '));
    for (const known of ['prepare-upgrade', 'rehearse', 'notify', 'restore', 'help']) assert.ok(names.includes(known), names.join(' '));
    assert.ok(!names.includes('run'));
    const addUpgrade = shapes.find((s) => s.name === 'add-upgrade');
    assert.deepEqual(addUpgrade?.positionals, ['upgrade-name', 'path-to-binary']);
    assert.deepEqual(addUpgrade?.options, [
      { name: 'upgrade-height', value: '<H>' },
      { name: 'force', value: undefined },
      { name: 'yes', value: undefined },
      { name: 'restart-now', value: undefined },
    ]);
  });

  type Case = [CommandShape, string[], RegExp];

  /** The cases, three at a time: each is a process start, and there are about a hundred. */
  async function assertAll(cases: Case[]): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < cases.length) {
        const [shape, args, what] = cases[next++] as Case;
        await assertUsage(shape, args, what);
      }
    };
    await Promise.all([worker(), worker(), worker()]);
  }

  const requiredOf = (shape: CommandShape): string[] => shape.positionals.slice(0, shape.required).map(() => 'x');

  test('an unknown option', async () => {
    await assertAll(
      shapes.map((shape) => [shape, [...requiredOf(shape), '--no-such-flag'], new RegExp(`^chainvisor: error: ${shape.name} has no option --no-such-flag`)]),
    );
  });

  test('a stray argument', async () => {
    const stray = /takes (no arguments|one argument|\d+ arguments), got (also )?"stray-argument"/;
    await assertAll(shapes.map((shape) => [shape, [...shape.positionals.map(() => 'x'), 'stray-argument'], stray]));
  });

  test('a global option after the command', async () => {
    await assertAll(
      shapes.map((shape) => [
        shape,
        [...requiredOf(shape), '--config', 'settings.json'],
        new RegExp(`--config goes before the command: chainvisor --config <file> ${shape.name}`),
      ]),
    );
  });

  test('an option missing its value: at the end, empty, or followed by another option', async () => {
    const cases = shapes.flatMap((shape) =>
      shape.options
        .filter((o) => o.value !== undefined)
        .flatMap((o): Case[] => {
          const needs = new RegExp(`--${o.name} needs a value`);
          return [
            [shape, [...requiredOf(shape), `--${o.name}`], needs],
            [shape, [...requiredOf(shape), `--${o.name}=`], needs],
            [shape, [...requiredOf(shape), `--${o.name}`, '--no-such-flag'], needs],
          ];
        }),
    );
    assert.ok(cases.length >= 30, `${cases.length / 3} options with a value`);
    await assertAll(cases);
  });

  test('a value that does not parse, and a flag given a value', async () => {
    const cases = shapes.flatMap((shape) =>
      shape.options.flatMap((o): Case[] => {
        if (o.value === undefined) return [[shape, [...requiredOf(shape), `--${o.name}=yes`], new RegExp(`--${o.name} takes no value, got "yes"`)]];
        const wrong = o.value.includes('|') ? 'not-a-choice' : wrongValues[o.value];
        assert.ok(wrong !== undefined, `add a wrong value for ${o.value} (${shape.name} --${o.name}) to wrongValues`);
        return wrong === null ? [] : [[shape, [...requiredOf(shape), `--${o.name}`, wrong], new RegExp(`--${o.name}.*"${wrong}"`)]];
      }),
    );
    await assertAll(cases);
  });

  test('nothing was done by any of them', async () => {
    assert.deepEqual(await fs.readdir(t.home), []);
  });
});

describe('the command line around the commands: no command, the version flags, global options, typos', () => {
  let t: TestHome;
  before(async () => {
    t = await makeHome({}, { bin: true });
  });
  after(async () => {
    await t.cleanup();
  });

  const general = 'chainvisor: usage: chainvisor [--config <file.json>] [--cosmovisor-config <config.toml>] <command> [arguments]';

  test('no command: the help on stderr, exit 64 (as cobra does); --help still exits 0', async () => {
    const r = await t.cli([]);
    assert.equal(r.exitCode, 64, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^Usage: chainvisor \[--config/m);
    assert.match(r.stderr, /^Commands:$/m);
    assert.equal((await t.cli(['--help'])).exitCode, 0);
  });

  test('-v prints the version as --version does; either with an argument is a usage error', async () => {
    const long = await t.cli(['--version']);
    assert.equal(long.exitCode, 0, long.stderr);
    const short = await t.cli(['-v']);
    assert.equal(short.exitCode, 0, short.stderr);
    assert.equal(short.stdout, long.stdout);
    assert.match(short.stdout, /^chainvisor version: \d+\.\d+\.\d+/);
    for (const flag of ['--version', '-v']) {
      const r = await t.cli([flag, 'extra']);
      assert.equal(r.exitCode, 64, r.stdout + r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, new RegExp(`^chainvisor: error: ${flag} takes no arguments, got "extra"$`, 'm'));
      assert.match(r.stderr, new RegExp(`^chainvisor: usage: chainvisor ${flag}$`, 'm'));
    }
  });

  test('--config without a value shows the usage line', async () => {
    for (const args of [['--config'], ['--config='], ['--cosmovisor-config']]) {
      const r = await t.cli(args);
      assert.equal(r.exitCode, 64, r.stderr);
      const lines = r.stderr.trimEnd().split('\n');
      assert.match(lines[0] as string, /^chainvisor: error: --(cosmovisor-)?config needs a file path$/);
      assert.equal(lines[1], general);
      assert.equal(lines[2], "chainvisor: hint: run 'chainvisor help' for the commands");
    }
  });

  test("a binary path that does not exist shows the command's usage line (exit 64)", async () => {
    const r = await t.cli(['add-upgrade', 'v9', '/nonexistent']);
    assert.equal(r.exitCode, 64, r.stderr);
    const lines = r.stderr.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 2), [
      'chainvisor: error: no file at /nonexistent',
      'chainvisor: usage: chainvisor add-upgrade <upgrade-name> <path-to-binary> [--upgrade-height <H>] [--force] [--yes] [--restart-now]',
    ]);
    assert.match(lines[2] as string, /^chainvisor: hint: give the path of the node binary to install; run 'chainvisor help add-upgrade'/);
    assert.equal(lines[3], 'chainvisor: code: CHAINVISOR_BINARY_NOT_FOUND');
  });

  test('a mistyped command: "did you mean" the one command within two edits, none when nothing is near', async () => {
    for (const [typed, meant] of [
      ['statsu', 'status'],
      ['stauts', 'status'],
      ['conifg', 'config'],
      ['notfiy', 'notify'],
      ['versoin', 'version'],
      ['hlep', 'help'],
    ] as const) {
      const r = await t.cli([typed]);
      assert.equal(r.exitCode, 64, r.stderr);
      assert.match(r.stderr, new RegExp(`^chainvisor: error: unknown command "${typed}"; did you mean "${meant}"\\?$`, 'm'));
    }
    const far = await t.cli(['frobnicate']);
    assert.equal(far.exitCode, 64);
    assert.match(far.stderr, /^chainvisor: error: unknown command "frobnicate"$/m);
    const help = await t.cli(['help', 'statsu']);
    assert.equal(help.exitCode, 64);
    assert.match(help.stderr, /did you mean "status"\?/);
  });
});
