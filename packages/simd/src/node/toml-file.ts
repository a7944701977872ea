/**
 * Reading the node's TOML configuration files (`config/config.toml`, `config/app.toml`) with the
 * project's TOML parser. A missing file is no settings; a file that is not TOML stops the node with
 * its name and the parser's position, as a Cosmos node refuses a broken config file.
 */
import { parse } from 'smol-toml';

import { SimError } from '../util/errors.js';
import { readOptional } from '../util/read-optional.js';

/** The file's top-level table, or undefined when there is no file. */
export async function readTomlFile(file: string): Promise<Record<string, unknown> | undefined> {
  const text = await readOptional(file);
  if (text === undefined) return undefined;
  try {
    return parse(text);
  } catch (error) {
    throw new SimError('SIM_CONFIG', `${file} is not valid TOML: ${(error as Error).message.split('\n')[0]}`, {
      hint: 'fix the file, or remove it: the node then uses its defaults (and the binary name as moniker)',
    });
  }
}

/** A top-level scalar setting as text (TOML strings, numbers and booleans alike); undefined when absent. */
export function tomlText(table: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = table?.[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return undefined;
}
