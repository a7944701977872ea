/**
 * Command-line flags the way Cosmos binaries (cobra/pflag) take them: `--flag value`, `--flag=value`,
 * booleans alone or `=true|false`, and lists that also accept the space-separated form cosmovisor
 * reads: `--unsafe-skip-upgrades 10 20` (as well as `--unsafe-skip-upgrades=10,20`).
 */
import { SimError } from '../util/errors.js';

export type FlagKind = 'string' | 'boolean' | 'list';

export interface FlagSpec {
  flags: Readonly<Record<string, FlagKind>>;
  /** Short forms: `-y` → `yes`. */
  aliases?: Readonly<Record<string, string>>;
}

export interface ParsedArgs {
  strings: Record<string, string>;
  booleans: Record<string, boolean>;
  lists: Record<string, string[]>;
  positionals: string[];
}

export class UsageProblem extends SimError {
  constructor(message: string, hint = 'add --help to see the command and its flags') {
    super('SIM_USAGE', message, { hint });
  }
}

export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const parsed: ParsedArgs = { strings: {}, booleans: {}, lists: {}, positionals: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      parsed.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-' || /^-\d/.test(arg)) {
      parsed.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const rawName = (eq === -1 ? arg : arg.slice(0, eq)).replace(/^--?/, '');
    const name = arg.startsWith('--') ? rawName : (spec.aliases?.[rawName] ?? rawName);
    const kind = spec.flags[name];
    if (kind === undefined) throw new UsageProblem(`unknown flag: ${arg.slice(0, eq === -1 ? undefined : eq)}`);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    if (kind === 'boolean') {
      if (inline !== undefined && !/^(true|false)$/i.test(inline)) {
        throw new UsageProblem(`invalid value ${JSON.stringify(inline)} for --${name}: expected true or false`);
      }
      parsed.booleans[name] = inline === undefined || inline.toLowerCase() === 'true';
    } else if (kind === 'string') {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageProblem(`flag needs an argument: --${name}`);
      parsed.strings[name] = value;
    } else {
      const values = parsed.lists[name] ?? [];
      if (inline !== undefined) {
        values.push(...inline.split(',').filter((v) => v !== ''));
      } else {
        while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith('-')) {
          values.push(...(argv[++i] as string).split(',').filter((v) => v !== ''));
        }
      }
      parsed.lists[name] = values;
    }
  }
  return parsed;
}

/** Parses a positive integer flag value (heights). */
export function parseHeight(text: string, what: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new UsageProblem(`invalid ${what} ${JSON.stringify(text)}: expected an integer block height`);
  return Number(text);
}
