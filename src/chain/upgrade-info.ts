/**
 * `upgrade-info.json`, the file the node writes when it halts for an upgrade.
 * Anything malformed is reported with a reason and never acted on; it must not crash supervision.
 * The file is read defensively (../fsread): only a regular file of at most 1 MiB — a FIFO, a device,
 * a folder or a huge file at that path is a reason like any other, never a hang or a memory blow-up.
 */
import { ChainvisorError } from '../shared/errors/index.js';
import { readBounded } from '../shared/fsread/index.js';

/** The largest upgrade-info.json read (1 MiB); a real one is a few hundred bytes, its Info included. */
export const maxUpgradeInfoBytes = 1024 * 1024;

export interface Plan {
  name: string;
  height: number;
  /** Free-form; for automatic downloads a JSON binaries map or a URL. */
  info: string;
  /** As written by the node; always the zero timestamp in practice. */
  time?: string;
}

export type PlanParse = { ok: true; plan: Plan } | { ok: false; reason: string; incomplete: boolean };

/** Validates the text of an upgrade-info.json. `incomplete` means it may still be being written. */
export function parseUpgradeInfo(text: string): PlanParse {
  if (text.trim() === '') return { ok: false, reason: 'the file is empty', incomplete: true };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${(error as Error).message})`, incomplete: true };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: 'expected a JSON object', incomplete: false };
  }
  const { name, height, info, time } = value as Record<string, unknown>;
  const reasons: string[] = [];
  if (typeof name !== 'string' || name === '') reasons.push('"name" must be a non-empty string');
  if (typeof height !== 'number' || !Number.isSafeInteger(height)) reasons.push('"height" must be a whole JSON number');
  else if (height <= 0) reasons.push(`"height" must be greater than 0, got ${height}`);
  if (info !== undefined && info !== null && typeof info !== 'string') reasons.push('"info" must be a string');
  if (time !== undefined && time !== null && typeof time !== 'string') reasons.push('"time" must be a string');
  if (reasons.length > 0) return { ok: false, reason: reasons.join('; '), incomplete: false };
  const plan: Plan = { name: name as string, height: height as number, info: typeof info === 'string' ? info : '' };
  if (typeof time === 'string') plan.time = time;
  return { ok: true, plan };
}

/** The node's own compact form (`info` omitted when empty). */
export function serializePlan(plan: Plan): string {
  const out: Record<string, unknown> = { name: plan.name, time: plan.time ?? '0001-01-01T00:00:00Z', height: plan.height };
  if (plan.info !== '') out.info = plan.info;
  return JSON.stringify(out);
}

export type UpgradeInfoRead =
  { status: 'missing' } | { status: 'invalid'; reason: string; incomplete: boolean; text: string } | { status: 'valid'; plan: Plan; text: string };

/** Never throws for what is at the path: a FIFO, a folder, a link loop, a 2 MiB file are `invalid`. */
export async function readUpgradeInfo(file: string): Promise<UpgradeInfoRead> {
  const read = await readBounded(file, maxUpgradeInfoBytes);
  if (read.status === 'missing') return read;
  if (read.status === 'refused') return { status: 'invalid', reason: read.reason, incomplete: false, text: '' };
  const text = read.text;
  const parsed = parseUpgradeInfo(text);
  return parsed.ok ? { status: 'valid', plan: parsed.plan, text } : { status: 'invalid', reason: parsed.reason, incomplete: parsed.incomplete, text };
}

/** The coded error an invalid upgrade-info.json is logged as (supervision goes on; nothing is applied). */
export function upgradeInfoError(file: string, reason: string): ChainvisorError {
  return new ChainvisorError('CHAINVISOR_UPGRADE_INFO_INVALID', `ignoring ${file}: ${reason}`, {
    hint: `the node writes this file when it halts for an upgrade: it must be a regular JSON file of at most ${maxUpgradeInfoBytes} bytes with "name" and "height"; remove or replace what is there, and a valid plan written later is still applied`,
  });
}
