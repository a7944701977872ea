/**
 * The shape an existing home must have before chainvisor builds on it: `genesis/bin` a folder,
 * `genesis/bin/$DAEMON_NAME` not a folder, `current` a link (or absent). Checked before anything is
 * created, so a home that cannot work is reported with the fix instead of half-initialised.
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

import { ChainvisorError, isErrno, isFsError, layoutFsError } from '../../shared/errors/index.js';
import { describeType } from '../../shared/fsread/index.js';
import { binaryPath, genesis, type Layout } from './paths.js';

async function lstatOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(file);
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return undefined;
    throw isFsError(error) ? layoutFsError(file, 'examine', error) : error;
  }
}

function layoutError(file: string, what: string, hint: string): ChainvisorError {
  return new ChainvisorError('CHAINVISOR_LAYOUT_INVALID', `${file} ${what}`, { hint });
}

/** Throws CHAINVISOR_LAYOUT_INVALID (exit 78) for a home whose layout cannot work. */
export async function checkLayoutShape(layout: Layout): Promise<void> {
  const binDir = path.dirname(binaryPath(layout, genesis));
  for (const folder of [layout.home, layout.root, layout.genesisDir, binDir, layout.upgradesDir]) {
    const stats = await lstatOrUndefined(folder);
    if (stats !== undefined && !stats.isDirectory() && !(stats.isSymbolicLink() && (await isDirectoryBehindLink(folder)))) {
      throw layoutError(folder, `is ${describeType(stats)}, not a folder`, `move it aside (mv ${folder} ${folder}.old), then run the command again`);
    }
  }
  const genesisBinary = binaryPath(layout, genesis);
  const binary = await lstatOrUndefined(genesisBinary);
  if (binary?.isDirectory()) {
    throw layoutError(genesisBinary, 'is a folder, not the node binary', `remove or move it aside, then run 'chainvisor init <path-to-binary>' again`);
  }
  const current = await lstatOrUndefined(layout.currentLink);
  if (current !== undefined && !current.isSymbolicLink()) {
    throw layoutError(
      layout.currentLink,
      `is ${describeType(current)}, not a link`,
      `chainvisor manages 'current' as a link to genesis or upgrades/<name>: move it aside (mv ${layout.currentLink} ${layout.currentLink}.old) and run the command again`,
    );
  }
}

async function isDirectoryBehindLink(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `run` and `config` need an initialised home: `$DAEMON_HOME` and `$DAEMON_HOME/cosmovisor` must be
 * folders (cosmovisor refuses to start otherwise too). Throws CHAINVISOR_HOME_MISSING (exit 78).
 */
export async function requireHome(layout: Layout): Promise<void> {
  for (const [folder, name] of [
    [layout.home, 'DAEMON_HOME'],
    [layout.root, '$DAEMON_HOME/cosmovisor'],
  ] as const) {
    let stats: Stats;
    try {
      stats = await fs.stat(folder);
    } catch (error) {
      const missing = isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR');
      throw new ChainvisorError(
        'CHAINVISOR_HOME_MISSING',
        `${name} (${folder}) ${missing ? 'does not exist' : `cannot be examined: ${(error as Error).message}`}`,
        {
          hint: missing
            ? "check DAEMON_HOME, or create the layout with 'chainvisor init <path-to-genesis-binary>'"
            : 'check the permissions of the folders above it',
          cause: error,
        },
      );
    }
    if (!stats.isDirectory()) {
      throw new ChainvisorError('CHAINVISOR_HOME_MISSING', `${name} (${folder}) is ${describeType(stats)}, not a folder`, {
        hint: 'point DAEMON_HOME at the node home folder (the one holding data/ and config/)',
      });
    }
  }
}

/**
 * cosmovisor creates a missing `current` as a link to genesis when genesis holds the binary; so does
 * chainvisor at start. Returns true when it created the link.
 */
export async function ensureCurrentLink(layout: Layout, link: (layout: Layout, dir: string) => Promise<void>): Promise<boolean> {
  if ((await lstatOrUndefined(layout.currentLink)) !== undefined) return false;
  const binary = await lstatOrUndefined(binaryPath(layout, genesis));
  if (binary === undefined || binary.isDirectory()) return false;
  await link(layout, genesis);
  return true;
}

/**
 * What is wrong with COSMOVISOR_CUSTOM_PREUPGRADE as it is on disk now, if anything: a script that is
 * missing or not a file fails every upgrade (exit 80). `config` refuses it; `run` says so at start.
 */
export async function customPreUpgradeProblem(root: string, name: string): Promise<string | undefined> {
  if (name === '') return undefined;
  const script = path.join(root, name);
  try {
    const stats = await fs.stat(script);
    return stats.isFile() ? undefined : `${script} is not a regular file, so every upgrade would fail at this step (exit 80)`;
  } catch (error) {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) {
      return `${script} does not exist, so every upgrade would fail at this step (exit 80); put the script there or unset the variable`;
    }
    // A link loop, no permission …: said with its code, as a problem of the setting, never a crash.
    if (isFsError(error)) return `${script} cannot be examined (${error.code}: ${error.message}), so every upgrade would fail at this step (exit 80)`;
    throw error;
  }
}
