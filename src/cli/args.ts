/**
 * The one argument parser of every command but `run` (whose arguments are the node's). A command declares
 * its positionals and options once, as an `ArgsSpec`; node:util's parseArgs reads the command line into
 * tokens, and every misuse — an unknown option, a stray argument, an option missing its value, a value
 * that does not parse, a flag given a value — is a UsageError (64) saying what was wrong. The CLI entry
 * adds the usage line, which `usageLine` derives from the same declaration, as `optionLines` derives the
 * option table of `chainvisor help <command>` (issue #33: 21 of 36 misuses ended in a stack trace).
 */
import { parseArgs } from 'node:util';

import { UsageError } from '../shared/errors/index.js';

export interface Flag {
  type: 'boolean';
  short?: string;
  /** The command cannot run without it (`notify --test`). */
  required?: boolean;
  /** For `chainvisor help <command>`; lines after the first are indented under it. */
  help: string;
}

export interface ValueOption<T = string> {
  type: 'string';
  /** The value's name in the usage line and the help: `<H>`, `<file>`. Choices are shown as `json|text`. */
  value?: string;
  short?: string;
  required?: boolean;
  /** May be given more than once; every value is kept. Otherwise the last one counts (as pflag does). */
  multiple?: boolean;
  /** The only values accepted. */
  choices?: readonly string[];
  /** The value as the command uses it, or why the text is not one ("a whole number above 0"). */
  parse?: (text: string) => { value: T } | { reason: string };
  help: string;
}

export type Option = Flag | ValueOption<unknown>;

export interface Positional {
  name: string;
  /** Said when it is missing: "init needs <what>". */
  what: string;
  required?: boolean;
}

export interface ArgsSpec {
  positionals?: readonly Positional[];
  options?: Readonly<Record<string, Option>>;
  /** Options that exclude each other; with `required`, exactly one must be given. */
  exclusive?: { options: readonly string[]; required?: boolean };
  /** Arguments after `--` are passed on untouched (rehearse: the scratch node's flags); this names them. */
  rest?: string;
}

/** What a value option gives the command, undefined when it was not given (a required one always is). */
type ValueOf<O> = O extends { type: 'boolean' } ? boolean : O extends { required: true } ? Given<O> : Given<O> | undefined;

type Given<O> = O extends { parse: (text: string) => infer R } ? (R extends { value: infer T } ? T : never) : O extends { multiple: true } ? string[] : string;

export interface ParsedArgs<S extends ArgsSpec> {
  /** Each option's value: a flag is false when not given, a value option undefined. */
  values: { [K in keyof NonNullable<S['options']>]: ValueOf<NonNullable<S['options']>[K]> };
  positionals: string[];
  /** After `--`, when the spec has `rest`. */
  rest: string[];
}

/** `args` read by `spec` for `command`; a UsageError at the first misuse, in the order written. */
export function parseCommandArgs<S extends ArgsSpec>(command: string, spec: S, args: readonly string[]): ParsedArgs<S> {
  const options = spec.options ?? {};
  const dash = spec.rest === undefined ? -1 : args.indexOf('--');
  const own = dash === -1 ? [...args] : args.slice(0, dash);
  const nodeOptions = Object.fromEntries(
    Object.entries(options).map(([name, o]) => [name, { type: o.type, ...(o.short === undefined ? {} : { short: o.short }), multiple: true }]),
  );
  // Not strict: every token comes back, and each misuse is said here in the command's own words.
  const { tokens } = parseArgs({ args: own, options: nodeOptions, strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    const shown = token.rawName.startsWith('--') ? token.rawName : `${token.rawName} (--${token.name})`;
    // As written (`-config`, not the `-c` of the short options parseArgs splits it into), without its value.
    if (option === undefined) throw new UsageError(unknownOption(command, (own[token.index] as string).replace(/=.*$/s, ''), options));
    if (option.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${shown} takes no value, got ${JSON.stringify(token.value)}`);
      values[token.name] = true;
      continue;
    }
    // A value that looks like an option is one the user forgot to give (`--backup --dry-run`), as parseArgs's strict mode says.
    const value = token.value;
    if (value === undefined || value === '' || (!token.inlineValue && value.startsWith('-') && value !== '-'))
      throw new UsageError(
        `${shown} needs a value${value !== undefined && value !== '' ? ` (for one that starts with "-", write ${token.rawName}=${value})` : ''}`,
      );
    const parsed = parseValue(option, value);
    if ('reason' in parsed) throw new UsageError(`${shown} ${parsed.reason}, got ${JSON.stringify(value)}`);
    values[token.name] = option.multiple ? [...((values[token.name] as unknown[] | undefined) ?? []), parsed.value] : parsed.value;
  }
  const declared = spec.positionals ?? [];
  if (positionals.length > declared.length) {
    const stray = positionals[declared.length] as string;
    throw new UsageError(
      declared.length === 0
        ? `${command} takes no arguments, got ${JSON.stringify(stray)}`
        : `${command} takes ${declared.length === 1 ? 'one argument' : `${declared.length} arguments`}, got also ${JSON.stringify(stray)}`,
    );
  }
  for (const [i, p] of declared.entries()) {
    const given = positionals[i];
    if (p.required && (given === undefined || given.trim() === '')) throw new UsageError(`${command} needs ${p.what}`);
  }
  for (const [name, o] of Object.entries(options)) {
    if (o.type === 'boolean') values[name] ??= false;
    if (o.required && (values[name] === undefined || values[name] === false)) throw new UsageError(`${command} needs --${name}`);
  }
  if (spec.exclusive) {
    const given = spec.exclusive.options.filter((name) => values[name] !== undefined && values[name] !== false);
    const named = spec.exclusive.options.map((name) => `--${name}`).join(' and ');
    if (given.length > 1) throw new UsageError(`${command} takes one of ${named}, not both`);
    if (spec.exclusive.required && given.length === 0) throw new UsageError(`${command} needs one of ${named}`);
  }
  return { values: values as ParsedArgs<S>['values'], positionals, rest: dash === -1 ? [] : args.slice(dash + 1) };
}

function parseValue(option: ValueOption<unknown>, text: string): { value: unknown } | { reason: string } {
  if (option.choices && !option.choices.includes(text)) return { reason: `must be ${option.choices.join(' or ')}` };
  return option.parse ? option.parse(text) : { value: text };
}

function unknownOption(command: string, raw: string, options: Readonly<Record<string, Option>>): string {
  // --config goes before the command (--cosmovisor-config is taken anywhere, as cosmovisor takes it).
  if (/^--?config$/i.test(raw)) return `${raw} goes before the command: chainvisor ${raw} <file> ${command} …`;
  const known = Object.keys(options);
  return `${command} has no option ${raw}${known.length === 0 ? ' (it takes none)' : ''}`;
}

/** `chainvisor <command> <positionals> [options]`, from the spec. */
export function usageLine(command: string, spec: ArgsSpec): string {
  const parts = [`chainvisor ${command}`];
  for (const p of spec.positionals ?? []) parts.push(p.required ? `<${p.name}>` : `[<${p.name}>]`);
  const exclusive = spec.exclusive?.options ?? [];
  for (const [name, o] of Object.entries(spec.options ?? {})) {
    if (exclusive[0] === name) {
      const group = exclusive.map((n) => optionUsage(n, (spec.options ?? {})[n] as Option)).join(' | ');
      parts.push(spec.exclusive?.required ? `(${group})` : `[${group}]`);
    }
    if (exclusive.includes(name)) continue;
    const text = optionUsage(name, o);
    parts.push(o.required ? text : `[${text}]`);
  }
  if (spec.rest !== undefined) parts.push(`[-- ${spec.rest}]`);
  return parts.join(' ');
}

function optionUsage(name: string, o: Option): string {
  return o.type === 'boolean' ? `--${name}` : `--${name} ${valueName(o)}`;
}

function valueName(o: ValueOption<unknown>): string {
  return o.value ?? o.choices?.join('|') ?? '<value>';
}

/** The option table of `chainvisor help <command>`: one entry per option, its help beside it. */
export function optionLines(spec: ArgsSpec): string[] {
  const entries = Object.entries(spec.options ?? {}).map(([name, o]) => {
    const flag = `${o.short === undefined ? '' : `-${o.short}, `}${optionUsage(name, o)}`;
    return [flag, o.help] as const;
  });
  const width = Math.max(0, ...entries.map(([flag]) => flag.length));
  return entries.flatMap(([flag, help]) =>
    help.split('\n').map((line, i) => (i === 0 ? `  ${flag.padEnd(width)}  ${line}` : `  ${' '.repeat(width)}  ${line}`)),
  );
}

/** A whole number of at least `min`, within what a JavaScript number holds exactly. */
export function wholeNumber(min: number): (text: string) => { value: number } | { reason: string } {
  return (text) => {
    const n = Number(text);
    return /^\d+$/.test(text) && Number.isSafeInteger(n) && n >= min
      ? { value: n }
      : { reason: `must be a whole number ${min === 1 ? 'above 0' : `of at least ${min}`}` };
  };
}
