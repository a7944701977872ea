/**
 * The entry point of every built binary: `runSimd({ version, name, argv })` dispatches the command
 * line and returns the exit code. Only this function prints errors: known ones as `Error: …` with a
 * hint, unknown ones with their stack (a bug).
 */
import { UsageProblem } from './cli/args.js';
import { helpFor } from './cli/help.js';
import { type CliIO, processIO } from './cli/io.js';
import { GoPanic, SimError } from './util/errors.js';
import { simVersions, type VersionOptions, withOptions } from './versions.js';

export interface RunSimdOptions {
  /** A key of simVersions: genesis, v2, v3, v2-broken. */
  version: string;
  /** The binary's name; default `simd`. */
  name?: string;
  /** A variant of `version` (buildVersions' `variants`): its name and how it differs. */
  variant?: { name: string; options: VersionOptions };
  argv: readonly string[];
  io?: CliIO;
}

/**
 * Each command's module is loaded when that command runs: the tests start these binaries hundreds of
 * times for init, pre-upgrade, queries and transactions, and loading every command's code (the node's
 * servers above all) took most of the CPU of each such start.
 */
const nodeCommands = () => import('./cli/node-commands.js');

function unknownCommand(command: string, name: string): UsageProblem {
  return new UsageProblem(`unknown command "${command}" for "${name}"`, `run '${name} --help' for the commands`);
}

export async function runSimd(options: RunSimdOptions): Promise<number> {
  const io = options.io ?? processIO();
  const name = options.name ?? 'simd';
  const base = simVersions[options.version];
  if (base === undefined) {
    io.err(`Error: unknown simulated version ${JSON.stringify(options.version)}; known: ${Object.keys(simVersions).join(', ')}\n`);
    return 1;
  }
  const version = options.variant === undefined ? base : withOptions(base, options.variant.name, options.variant.options);
  const argv = options.argv;
  // Command words lead; flags (and the positionals between them) follow, as cobra users write them.
  const firstFlag = argv.findIndex((a) => a.startsWith('-'));
  const words = firstFlag === -1 ? [...argv] : argv.slice(0, firstFlag);
  const [command, sub, leaf] = words;
  const group = (command === 'query' || command === 'q' || command === 'tx') && leaf === undefined && sub !== 'stores';
  const known = command !== 'in-place-testnet' || version.inPlaceTestnet;
  if (known && (command === undefined || command === 'help' || group || argv.includes('--help') || argv.includes('-h'))) {
    const path = command === 'help' ? words.slice(1) : words;
    await io.out(helpFor(path, name, version));
    return 0;
  }
  const ctx = { io, name, version };
  const rest = (skip: number) => argv.slice(skip);
  try {
    switch (command) {
      case 'init':
        return await (await nodeCommands()).init(ctx, rest(1));
      case 'start':
        return await (await nodeCommands()).start(ctx, rest(1));
      case 'in-place-testnet':
        // A version built without it (an SDK before v0.50.4) answers as cobra does for any unknown command.
        if (!version.inPlaceTestnet) throw unknownCommand(command, name);
        return await (await import('./cli/in-place-testnet.js')).inPlaceTestnet(ctx, rest(1));
      case 'status':
        return await (await nodeCommands()).status(ctx, rest(1));
      case 'version':
        return await (await nodeCommands()).version(ctx, rest(1));
      case 'keys':
        return await (await nodeCommands()).keys(ctx, rest(1));
      case 'pre-upgrade':
        return await (await import('./cli/pre-upgrade.js')).preUpgrade(io, version.name);
      case 'query':
      case 'q':
        if (sub === 'stores') return await (await import('./cli/query.js')).runQuery(ctx, 'stores', undefined, rest(2));
        if (sub === undefined || (sub !== 'upgrade' && sub !== 'gov')) throw new UsageProblem(`unknown command "${sub ?? ''}" for "query"`);
        return await (await import('./cli/query.js')).runQuery(ctx, sub, leaf, rest(3));
      case 'tx': {
        const { txCommands } = await import('./cli/tx.js');
        const run = sub === undefined || leaf === undefined ? undefined : txCommands[sub]?.[leaf];
        if (run === undefined) throw new UsageProblem(`unknown command "${[sub, leaf].filter(Boolean).join(' ')}" for "tx"`);
        return await run(ctx, rest(3));
      }
      default:
        throw unknownCommand(command, name);
    }
  } catch (error) {
    if (error instanceof SimError) {
      io.err(`Error: ${error.message}\n${error.hint === undefined ? '' : `Hint: ${error.hint}\n`}`);
      return 1;
    }
    if (error instanceof GoPanic) {
      // As the Go runtime prints an unrecovered panic, then exits 2.
      const frames = (error.stack ?? '')
        .split('\n')
        .slice(1)
        .map((line) => `\t${line.trim()}`);
      io.err(`panic: ${error.message}\n\ngoroutine 1 [running]:\n${frames.join('\n')}\n`);
      return 2;
    }
    io.err(`Error (this is a bug in the simulated node): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}
