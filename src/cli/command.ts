/** What every `chainvisor <command>` implements. Commands return an exit code; only `main` prints errors. */
import type { Writable } from 'node:stream';

import { type ArgsSpec, type ParsedArgs, usageLine } from './args.js';

export interface CommandContext {
  /** Arguments after the command name, untouched (`run` passes them to the node; the others' are parsed by args.ts). */
  args: string[];
  env: NodeJS.ProcessEnv;
  /** From the global `--config <file>` option. */
  configFile: string | undefined;
  /** From `--cosmovisor-config <file>` (before the command, or anywhere after it). */
  cosmovisorConfigFile?: string | undefined;
  stdout: Writable;
  stderr: Writable;
}

/** `run`'s arguments: the node's, passed on as they are (`--help` included); this names them in the usage line. */
export interface NodeArguments {
  node: string;
}

/** A command as `chainvisor help` lists it: its module is loaded only when the command is used or its help shown. */
export interface CommandEntry {
  name: string;
  /** One line for `chainvisor help`. */
  summary: string;
  load(): Promise<Command>;
}

/** What a command's module defines. */
export interface Command<S extends ArgsSpec = ArgsSpec> {
  /** What the command takes, declared once: its parsing, usage line and option table derive from it (args.ts). */
  args: S | NodeArguments;
  /**
   * Longer help for `chainvisor help <name>` and `<name> --help`, before the option table. A function
   * when part of it comes from a module the command loads only when it runs (check-plan's formats,
   * from verify/): its help then does not evaluate that module until asked for.
   */
  help: string | (() => Promise<string>);
  run(ctx: CommandContext, args: ParsedArgs<S>): Promise<number>;
}

/** A command with the types of its parsed arguments inferred from its declaration. */
export function defineCommand<const S extends ArgsSpec>(command: Command<S>): Command<S> {
  return command;
}

/** `chainvisor <name> …` synopsis. */
export function usageOf(name: string, command: Command): string {
  return 'node' in command.args ? `chainvisor ${name} ${command.args.node}` : usageLine(name, command.args);
}

export function writeLine(stream: Writable, line = ''): void {
  stream.write(`${line}\n`);
}
