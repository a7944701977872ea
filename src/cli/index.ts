/**
 * The `chainvisor` command. The only place that prints errors and decides exit codes: modules throw
 * ChainvisorErrors, which are shown as message + hint; anything else is a bug and shows its stack.
 */
import { ChainvisorError, ExitCode, UsageError } from '../errors/index.js';
import { type CommandContext, writeLine } from './command.js';
import { commands } from './commands/index.js';
import { version } from './version.js';

export interface MainOptions {
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream & import('node:stream').Writable;
  stderr?: NodeJS.WritableStream & import('node:stream').Writable;
}

export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  try {
    const { configFile, rest } = takeGlobalOptions(argv);
    const [name, ...args] = rest;
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      const topic = name === 'help' ? args[0] : undefined;
      writeLine(stdout, topic === undefined ? generalHelp() : commandHelp(topic));
      return ExitCode.ok;
    }
    if (name === '--version') {
      writeLine(stdout, `chainvisor version: ${version}`);
      return ExitCode.ok;
    }
    const command = commands.find((c) => c.name === name);
    if (command === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    if (!command.passesHelpThrough && args.some((a) => a === '--help' || a === '-h')) {
      writeLine(stdout, commandHelp(name));
      return ExitCode.ok;
    }
    const ctx: CommandContext = { args, env: options.env ?? process.env, configFile, stdout, stderr };
    return await command.run(ctx);
  } catch (error) {
    return reportError(error, stderr);
  }
}

function takeGlobalOptions(argv: string[]): { configFile: string | undefined; rest: string[] } {
  let configFile: string | undefined;
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--config') {
      configFile = argv[++i];
      if (configFile === undefined) throw new UsageError('--config needs a file path');
    } else if (arg.startsWith('--config=')) {
      configFile = arg.slice('--config='.length);
    } else {
      break;
    }
  }
  return { configFile, rest: argv.slice(i) };
}

function generalHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `chainvisor ${version} — runs a Cosmos-SDK node and switches its binary at upgrade heights.`,
    '',
    'Usage: chainvisor [--config <file>] <command> [arguments]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${'help'.padEnd(width)}  show this help, or 'help <command>'`,
    '',
    'Settings come from the environment (DAEMON_HOME, DAEMON_NAME, …) and optionally a JSON file',
    "given by --config or CHAINVISOR_CONFIG; 'chainvisor config' shows them.",
  ].join('\n');
}

function commandHelp(name: string): string {
  const command = commands.find((c) => c.name === name);
  if (command === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
  return [`Usage: ${command.usage}`, '', command.summary, '', command.help].join('\n');
}

function reportError(error: unknown, stderr: NodeJS.WritableStream): number {
  if (error instanceof ChainvisorError) {
    stderr.write(`chainvisor: error: ${error.message}\n`);
    if (error.hint) stderr.write(`chainvisor: hint: ${error.hint}\n`);
    return error.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  stderr.write(`chainvisor: unexpected error (this is a bug in chainvisor; please report it with this output):\n${stack}\n`);
  return ExitCode.internal;
}
