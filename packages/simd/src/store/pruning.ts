/**
 * The `pruning` setting of a Cosmos node (app.toml `pruning`, `pruning-keep-recent`,
 * `pruning-interval`; the `start` flags of the same names), with the SDK's meanings (v0.47/v0.50
 * store/pruning): `default` keeps the last 362880 states and prunes every 10 blocks, `everything`
 * keeps the last 2 and prunes every 10 blocks, `nothing` keeps every state, `custom` takes the two
 * numbers (interval at least 10, keep-recent at least 2). At a height h that is a multiple of the
 * interval and above keep-recent, the states up to h − 1 − keep-recent are removed; the ones above
 * stay until the next pruning height.
 */
export type PruningStrategy = 'default' | 'everything' | 'nothing' | 'custom';

export interface PruningOptions {
  strategy: PruningStrategy;
  keepRecent: number;
  interval: number;
}

export const defaultPruning: PruningOptions = { strategy: 'default', keepRecent: 362880, interval: 10 };

const everythingKeepRecent = 2;
const everythingInterval = 10;

/** Thrown for a setting a real node refuses at start (its message is the SDK's). */
export class PruningConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PruningConfigError';
  }
}

/** Resolves the setting as the SDK's GetPruningOptionsFromFlags does; keepRecent/interval count only for `custom`. */
export function pruningOptions(strategy: string, keepRecent = 0, interval = 0): PruningOptions {
  switch (strategy.toLowerCase()) {
    case 'default':
      return defaultPruning;
    case 'everything':
      return { strategy: 'everything', keepRecent: everythingKeepRecent, interval: everythingInterval };
    case 'nothing':
      return { strategy: 'nothing', keepRecent: 0, interval: 0 };
    case 'custom': {
      const invalid = (why: string) => new PruningConfigError(`invalid custom pruning options: ${why}`);
      if (interval === 0) throw invalid(`'pruning-interval' must not be 0. If you want to disable pruning, select pruning = "nothing"`);
      if (interval < everythingInterval) {
        throw invalid(`'pruning-interval' must not be less than ${everythingInterval}. For the most aggressive pruning, select pruning = "everything"`);
      }
      if (keepRecent < everythingKeepRecent) {
        throw invalid(`'pruning-keep-recent' must not be less than ${everythingKeepRecent}. For the most aggressive pruning, select pruning = "everything"`);
      }
      return { strategy: 'custom', keepRecent, interval };
    }
    default:
      throw new PruningConfigError(`unknown pruning strategy ${strategy.toLowerCase()}`);
  }
}

/** The height up to which states are removed when `height` is committed; 0 = none (the SDK's GetPruningHeight, no snapshots). */
export function pruneHeight(options: PruningOptions, height: number): number {
  if (options.strategy === 'nothing' || options.interval <= 0) return 0;
  if (height % options.interval !== 0 || height <= options.keepRecent) return 0;
  return height - 1 - options.keepRecent;
}
