/**
 * Reading the node's TOML configuration files (`config/config.toml`, `config/app.toml`) with the
 * project's TOML parser. A missing file is no settings; a file that is not TOML stops the node with
 * its name and the parser's position, as a Cosmos node refuses a broken config file.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'smol-toml';
import { isErrno, SimError } from '../util/errors.js';

/** The file's top-level table, or undefined when there is no file. */
export async function readTomlFile(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
  try {
    return parse(text) as Record<string, unknown>;
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
