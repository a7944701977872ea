/**
 * The node's settings from `<home>/config/app.toml` that the simulated node honours — the pruning
 * keys at the top of the file (`pruning`, `pruning-keep-recent`, `pruning-interval`) — resolved with
 * the `start` flags of the same names, which win over the file, as in a Cosmos node. A missing
 * file means the defaults.
 */
import path from 'node:path';

import { PruningConfigError, type PruningOptions, pruningOptions } from '../store/pruning.js';
import { SimError } from '../util/errors.js';
import { readTomlFile, tomlText } from './toml-file.js';

export function appTomlPath(home: string): string {
  return path.join(home, 'config', 'app.toml');
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
  const file = await readTomlFile(appTomlPath(home));
  const pick = (name: string) => flags[name] ?? tomlText(file, name);
  try {
    return pruningOptions(
      pick('pruning') ?? 'default',
      uint(pick('pruning-keep-recent'), 'pruning-keep-recent'),
      uint(pick('pruning-interval'), 'pruning-interval'),
    );
  } catch (error) {
    if (!(error instanceof PruningConfigError)) throw error;
    throw new SimError('SIM_CONFIG', error.message, {
      hint: 'use --pruning default|nothing|everything, or custom with --pruning-keep-recent >= 2 and --pruning-interval >= 10',
    });
  }
}
