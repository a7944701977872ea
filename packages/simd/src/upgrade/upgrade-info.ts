/**
 * `<home>/data/upgrade-info.json`: written by the node when it halts for an upgrade it cannot apply
 *, read back at start by the store loader of the next binary.
 */
import path from 'node:path';

import { writeFileAtomic } from '../util/atomic-write.js';
import { SimError } from '../util/errors.js';
import { readOptional } from '../util/read-optional.js';
import { zeroTimeText } from '../util/time.js';
import type { Plan } from './types.js';

export const upgradeInfoFile = 'upgrade-info.json';

/** Compact JSON, `height` a number, `info` omitted when empty, `time` the zero timestamp. */
export function upgradeInfoJson(plan: Plan, height: number): string {
  return JSON.stringify({
    name: plan.name,
    time: zeroTimeText,
    height,
    ...(plan.info === '' ? {} : { info: plan.info }),
  });
}

export async function writeUpgradeInfo(dataDir: string, plan: Plan, height: number): Promise<void> {
  await writeFileAtomic(path.join(dataDir, upgradeInfoFile), upgradeInfoJson(plan, height), 0o600);
}

/** The plan the previous binary halted for, or undefined when there is none. */
export async function readUpgradeInfo(dataDir: string): Promise<Plan | undefined> {
  const file = path.join(dataDir, upgradeInfoFile);
  const text = await readOptional(file);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SimError('SIM_UPGRADE_INFO_INVALID', `${file} is not valid JSON`, {
      cause: error,
      hint: 'remove the file if no upgrade is pending, or restore it from the halted node',
    });
  }
  const record = (parsed ?? {}) as { name?: unknown; height?: unknown; info?: unknown };
  if (typeof record.name !== 'string' || typeof record.height !== 'number') {
    throw new SimError('SIM_UPGRADE_INFO_INVALID', `${file} has no valid "name" and "height"`);
  }
  return { name: record.name, height: record.height, info: typeof record.info === 'string' ? record.info : '' };
}
