/**
 * The `chainvisor` command. The only place that prints errors and decides exit codes: modules throw
 * ChainvisorErrors, which are shown as message + hint; anything else is a bug and shows its stack.
 */
import { ChainvisorError, ExitCode, UsageError } from '../shared/errors/index.js';
import { isJournalStream, syslogPriority } from '../shared/journal-stream.js';
import { shownLines } from '../shared/json.js';
import { type ArgsSpec, optionLines, parseCommandArgs, usageLine } from './args.js';
import { type Command, type CommandContext, type CommandEntry, usageOf, writeLine } from './command.js';
import { commands } from './commands/index.js';
import { nearestName } from './nearest.js';
import { version } from './version.js';

export interface MainOptions {
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream & import('node:stream').Writable;
  stderr?: NodeJS.WritableStream & import('node:stream').Writable;
}

/** `chainvisor help [<command>]`: parsed like a command, though it is main's own. */
const helpArgs = { positionals: [{ name: 'command', what: 'a command' }] } satisfies ArgsSpec;

export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  /** The usage line a misuse shows: the command's once it is known, the general one before. */
  let usage: { name: string; line: string } = { name: '', line: generalUsage };
  try {
    const global = takeGlobalOptions(argv);
    const [name, ...commandArgs] = global.rest;
    // cosmovisor also takes --cosmovisor-config after the command (for `run`, anywhere among the node's
    // arguments, which it removes): the first occurrence counts.
    const { file: lateCosmovisorConfig, args } = takeCosmovisorConfig(commandArgs);
    const configFile = global.configFile;
    const cosmovisorConfigFile = global.cosmovisorConfigFile ?? lateCosmovisorConfig;
    // No command is a misuse, as cobra has it: the help goes to stderr, and the exit says so (64).
    if (name === undefined) {
      writeLine(stderr, generalHelp());
      return ExitCode.usage;
    }
    if (name === '--help' || name === '-h') {
      writeLine(stdout, generalHelp());
      return ExitCode.ok;
    }
    if (name === 'help') {
      usage = { name, line: usageLine('help', helpArgs) };
      const [topic] = parseCommandArgs('help', helpArgs, args).positionals;
      writeLine(stdout, topic === undefined ? generalHelp() : await topicHelp(topic));
      return ExitCode.ok;
    }
    if (name === '--version' || name === '-v') {
      usage = { name: '', line: `chainvisor ${name}` };
      if (args.length > 0) throw new UsageError(`${name} takes no arguments, got ${JSON.stringify(args[0])}`);
      writeLine(stdout, `chainvisor version: ${version}`);
      return ExitCode.ok;
    }
    const entry = findCommand(name);
    const command = await entry.load();
    usage = { name, line: usageOf(name, command) };
    // `run` passes --help to the node; every other command answers it itself.
    if (!('node' in command.args) && args.some((a) => a === '--help' || a === '-h')) {
      writeLine(stdout, await commandHelp(entry, command));
      return ExitCode.ok;
    }
    const parsed = 'node' in command.args ? { values: {}, positionals: args, rest: [] } : parseCommandArgs(name, command.args, args);
    const ctx: CommandContext = { args, env: options.env ?? process.env, configFile, cosmovisorConfigFile, stdout, stderr };
    return await command.run(ctx, parsed);
  } catch (error) {
    // Under systemd's journal the report is an error (`<3>`), so `journalctl -p err` shows why chainvisor stopped.
    const journal = options.stderr === undefined && isJournalStream(2, (options.env ?? process.env).JOURNAL_STREAM);
    const prefix = `<${syslogPriority(50)}>`;
    return reportError(error, journal ? { write: (text) => stderr.write(text.replace(/^(?=.)/gm, prefix)) } : stderr, usage);
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

const generalUsage = 'chainvisor [--config <file.json>] [--cosmovisor-config <config.toml>] <command> [arguments]';

function generalHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `chainvisor ${version} — runs a Cosmos-SDK node and switches its binary at upgrade heights.`,
    '',
    `Usage: ${generalUsage}`,
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

function findCommand(name: string): CommandEntry {
  const entry = commands.find((c) => c.name === name);
  if (entry !== undefined) return entry;
  const near = nearestName(name, [...commands.map((c) => c.name), 'help']);
  throw new UsageError(`unknown command ${JSON.stringify(name)}${near === undefined ? '' : `; did you mean "${near}"?`}`);
}

/** `chainvisor help <topic>`: loads that command only. */
async function topicHelp(topic: string): Promise<string> {
  if (topic === 'help') return [`Usage: ${usageLine('help', helpArgs)}`, '', 'show the commands, or the help of one'].join('\n');
  const entry = findCommand(topic);
  return commandHelp(entry, await entry.load());
}

async function commandHelp(entry: CommandEntry, command: Command): Promise<string> {
  const options = 'node' in command.args ? [] : optionLines(command.args);
  const help = typeof command.help === 'string' ? command.help : await command.help();
  const usage = usageOf(entry.name, command);
  return [`Usage: ${usage}`, '', entry.summary, '', help, ...(options.length === 0 ? [] : ['', 'Options:', ...options])].join('\n');
}

/** The hint UsageError gives when its thrower had nothing more precise to say. */
const genericUsageHint = new UsageError('').hint;

function reportError(error: unknown, stderr: { write(text: string): unknown }, usage: { name: string; line: string }): number {
  if (error instanceof ChainvisorError) {
    stderr.write(`chainvisor: error: ${shownLines(error.message)}\n`);
    let hint = error.hint;
    // A misuse of a known command (any exit 64: the command line is wrong): its usage line, and where its whole help is.
    if (error.exitCode === ExitCode.usage) {
      stderr.write(`chainvisor: usage: ${usage.line}\n`);
      const more = `run 'chainvisor help${usage.name === '' ? '' : ` ${usage.name}`}' for ${usage.name === '' ? 'the commands' : 'its arguments and options'}`;
      hint = hint === undefined || hint === genericUsageHint ? more : `${hint}; ${more}`;
    }
    if (hint) stderr.write(`chainvisor: hint: ${shownLines(hint)}\n`);
    // The stable code, for scripts and for searching the documentation (the text may change).
    stderr.write(`chainvisor: code: ${error.code}\n`);
    return error.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  stderr.write(`chainvisor: unexpected error (this is a bug in chainvisor; please report it with this output):\n${shownLines(stack)}\n`);
  return ExitCode.internal;
}
