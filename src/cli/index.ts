/**
 * The `chainvisor` command. The only place that prints errors and decides exit codes: modules throw
 * ChainvisorErrors, which are shown as message + hint; anything else is a bug and shows its stack.
 */
import { ChainvisorError, ExitCode, UsageError } from '../shared/errors/index.js';
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
    const global = takeGlobalOptions(argv);
    const [name, ...commandArgs] = global.rest;
    // cosmovisor also takes --cosmovisor-config after the command (for `run`, anywhere among the node's
    // arguments, which it removes): the first occurrence counts.
    const { file: lateCosmovisorConfig, args } = takeCosmovisorConfig(commandArgs);
    const configFile = global.configFile;
    const cosmovisorConfigFile = global.cosmovisorConfigFile ?? lateCosmovisorConfig;
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
    const ctx: CommandContext = { args, env: options.env ?? process.env, configFile, cosmovisorConfigFile, stdout, stderr };
    return await command.run(ctx);
  } catch (error) {
    return reportError(error, stderr);
  }
}

interface GlobalOptions {
  configFile: string | undefined;
  cosmovisorConfigFile: string | undefined;
  rest: string[];
}

function takeGlobalOptions(argv: string[]): GlobalOptions {
  const found: Record<'config' | 'cosmovisor-config', string | undefined> = { config: undefined, 'cosmovisor-config': undefined };
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i] as string;
    const match = /^--?(config|cosmovisor-config)(?:=(.*))?$/i.exec(arg);
    if (match === null) break;
    const option = (match[1] as string).toLowerCase() as keyof typeof found;
    const value = match[2] ?? argv[++i];
    if (value === undefined || value === '') throw new UsageError(`--${option} needs a file path`);
    found[option] = value;
  }
  return { configFile: found.config, cosmovisorConfigFile: found['cosmovisor-config'], rest: argv.slice(i) };
}

/** Removes the first `--cosmovisor-config <file>` (or `-cosmovisor-config`, or `=file`) from `args`. */
function takeCosmovisorConfig(args: string[]): { file: string | undefined; args: string[] } {
  const i = args.findIndex((arg) => /^--?cosmovisor-config(=|$)/i.test(arg));
  if (i === -1) return { file: undefined, args };
  const arg = args[i] as string;
  const eq = arg.indexOf('=');
  const file = eq === -1 ? args[i + 1] : arg.slice(eq + 1);
  if (file === undefined || file === '')
    throw new UsageError('--cosmovisor-config needs a file path', 'chainvisor run --cosmovisor-config $DAEMON_HOME/cosmovisor/config.toml start');
  return { file, args: [...args.slice(0, i), ...args.slice(i + (eq === -1 ? 2 : 1))] };
}

function generalHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `chainvisor ${version} — runs a Cosmos-SDK node and switches its binary at upgrade heights.`,
    '',
    'Usage: chainvisor [--config <file.json>] [--cosmovisor-config <config.toml>] <command> [arguments]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${'help'.padEnd(width)}  show this help, or 'help <command>'`,
    '',
    'Settings come from the environment (DAEMON_HOME, DAEMON_NAME, …), which overrides a JSON file given by',
    "--config or CHAINVISOR_CONFIG, which overrides cosmovisor's config.toml given by --cosmovisor-config;",
    "'chainvisor config' shows each value and where it came from.",
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
    // The stable code, for scripts and for searching the documentation (the text may change).
    stderr.write(`chainvisor: code: ${error.code}\n`);
    return error.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  stderr.write(`chainvisor: unexpected error (this is a bug in chainvisor; please report it with this output):\n${stack}\n`);
  return ExitCode.internal;
}
