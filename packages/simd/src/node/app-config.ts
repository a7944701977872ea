/**
 * The node's settings from `<home>/config/app.toml` that the simulated node honours — the pruning
 * keys at the top of the file (`pruning`, `pruning-keep-recent`, `pruning-interval`) — resolved with
 * the `start` flags of the same names, which win over the file, as in a Cosmos node. A missing
 * file means the defaults.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isErrno, SimError } from '../util/errors.js';
import { PruningConfigError, pruningOptions, type PruningOptions } from '../store/pruning.js';

export function appTomlPath(home: string): string {
  return path.join(home, 'config', 'app.toml');
}

/** The `key = value` lines before the first `[table]` (strings unquoted, comments dropped). */
export async function readAppTomlTop(home: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(appTomlPath(home), 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return {};
    throw error;
  }
  const values: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) break;
    const match = /^([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^#]*?))\s*(?:#.*)?$/.exec(line);
    if (match !== null) values[match[1] as string] = match[2] ?? match[3] ?? match[4] ?? '';
  }
  return values;
}

function uint(text: string | undefined, name: string): number {
  if (text === undefined || text.trim() === '') return 0;
  if (!/^\d+$/.test(text.trim())) {
    throw new SimError('SIM_CONFIG', `invalid ${name} ${JSON.stringify(text)}: expected a non-negative integer`, {
      hint: `set --${name} (or ${name} in config/app.toml) to a number of blocks`,
    });
  }
  return Number(text.trim());
}

/** The pruning setting: flags first, then app.toml, then the SDK's `default`. */
export async function resolvePruning(home: string, flags: Readonly<Record<string, string | undefined>>): Promise<PruningOptions> {
  const file = await readAppTomlTop(home);
  const pick = (name: string) => flags[name] ?? file[name];
  try {
    return pruningOptions(pick('pruning') ?? 'default', uint(pick('pruning-keep-recent'), 'pruning-keep-recent'), uint(pick('pruning-interval'), 'pruning-interval'));
  } catch (error) {
    if (!(error instanceof PruningConfigError)) throw error;
    throw new SimError('SIM_CONFIG', error.message, {
      hint: 'use --pruning default|nothing|everything, or custom with --pruning-keep-recent >= 2 and --pruning-interval >= 10',
    });
  }
}
