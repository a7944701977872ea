/**
 * Before a byte is copied, what could make the rehearsal impossible (exit 79, nothing written): the
 * upgrade's binary not installed, the current binary without `in-place-testnet` (asked with `--help`:
 * a cobra root without the command answers with its own help, which does not name it), no chain id in
 * genesis, not enough free disk for the copy with room for the scratch node to write.
 */
import fs from 'node:fs/promises';

import type { Config } from '../config/index.js';
import { type BackupMode, bytesNeeded, chooseMode, readTree, type StatfsFn } from '../home/backup/index.js';
import { binaryPath, type Layout, planDir, readCurrentDir, statBinary } from '../home/layout/index.js';
import { ChainvisorError } from '../shared/errors/index.js';
import type { Logger } from '../shared/log.js';
import { runProgram } from '../shared/proc/index.js';
import { formatBytesExact as formatBytes } from '../shared/units.js';

export const sdkHint =
  "in-place-testnet is the Cosmos SDK's (v0.50.4 and later): chains add it to their binary with server.AddTestnetCreatorCommand; a binary without it cannot rehearse";

export interface Binaries {
  /** `upgrades/<dir>`. */
  dir: string;
  oldBinary: string;
  newBinary: string;
}

export async function findBinaries(layout: Layout, config: Config, upgrade: string): Promise<Binaries> {
  const dir = planDir(layout, upgrade);
  const newBinary = binaryPath(layout, dir);
  const found = await statBinary(newBinary, 79);
  if (found?.isFile() !== true || found.size === 0) {
    throw new ChainvisorError('CHAINVISOR_REHEARSAL_UNAVAILABLE', `the binary of upgrade "${upgrade}" is not installed: nothing at ${newBinary}`, {
      hint: `install it first: chainvisor add-upgrade ${upgrade} <path-to-new-binary> (or let staging download it), then rehearse`,
    });
  }
  const current = await readCurrentDir(layout);
  if (current === dir) {
    throw new ChainvisorError('CHAINVISOR_REHEARSAL_UNAVAILABLE', `upgrade "${upgrade}" is already applied here: current points at ${dir}`, {
      hint: 'rehearse an upgrade that is still to come',
    });
  }
  return { dir, oldBinary: binaryPath(layout, current), newBinary };
}

/** Throws when `binary` has no `in-place-testnet` command. */
export async function checkInPlaceTestnet(binary: string, env: NodeJS.ProcessEnv): Promise<void> {
  const { code, output } = await capture(binary, ['in-place-testnet', '--help'], env, 30_000);
  if (code === 0 && /in-place-testnet/.test(output) && !/unknown command/.test(output)) return;
  throw new ChainvisorError(
    'CHAINVISOR_REHEARSAL_UNAVAILABLE',
    `the current binary ${binary} has no in-place-testnet command (asked '${binary} in-place-testnet --help': ${firstLine(output, code)}), so this chain's state cannot be rehearsed with it`,
    { hint: sdkHint },
  );
}

function firstLine(output: string, code: number | undefined): string {
  const line = output.split('\n').find((l) => /unknown command|error/i.test(l)) ?? output.split('\n').find((l) => l.trim() !== '') ?? '';
  return `${line.trim().slice(0, 200) || 'no output'}, exit ${code ?? 'by signal'}`;
}

/** Its output, both streams in the order they came (at most 64 KiB), and its exit code. */
async function capture(binary: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | undefined; output: string }> {
  let output = '';
  const result = await runProgram(binary, args, {
    env,
    timeoutMs,
    onLine: (line) => {
      if (output.length < 65536) output += `${line}\n`;
    },
  });
  return { code: result.exitCode, output: output + (result.cause?.message ?? '') };
}

export interface SpaceChoice {
  mode: BackupMode;
  reason: string;
  dataBytes: number;
  needed: number;
  available: number;
}

/**
 * The copy's mode (the backup's `auto` choice, or CHAINVISOR_BACKUP_MODE) and its room: what the copy
 * needs plus what the scratch node may write (a tenth of the data, at least 256 MiB).
 */
export async function checkSpace(options: { layout: Layout; config: Config; rehearsalDir: string; logger: Logger; statfs?: StatfsFn }): Promise<SpaceChoice> {
  const { layout, config, rehearsalDir, logger } = options;
  const tree = await readTree(layout.dataDir);
  const choice = await chooseMode({ requested: config.backupMode, tree, backupDir: rehearsalDir, logger });
  const stats = await (options.statfs ?? ((dir: string) => fs.statfs(dir)))(rehearsalDir);
  const blockSize = Number(stats.bsize) || 4096;
  const available = Number(stats.bavail) * blockSize;
  const needed = bytesNeeded(tree, choice.mode, blockSize) + Math.max(256 * 1024 * 1024, Math.ceil(tree.bytes / 10));
  if (needed > available) {
    throw new ChainvisorError(
      'CHAINVISOR_REHEARSAL_NO_SPACE',
      `not enough disk to rehearse in ${rehearsalDir}: the ${choice.mode} copy of ${layout.dataDir} and the scratch node need ${formatBytes(needed)}, ${formatBytes(available)} is available; nothing was written`,
    );
  }
  return { mode: choice.mode, reason: choice.reason, dataBytes: tree.bytes, needed, available };
}
