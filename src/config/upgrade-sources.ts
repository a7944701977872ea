/**
 * CHAINVISOR_UPGRADE_SOURCES and the settings that go with it (issue #34): the list is checked here,
 * with every problem at once, so that a typo stops `config` and `run` (exit 78) instead of an upgrade
 * that finds no source on the night.
 */
import type { ConfigProblem } from '../shared/errors/index.js';
import { redactSecretUrl } from '../shared/redact.js';
import type { Parsed } from './values.js';

export const upgradeSourceNames = ['plan', 'registry', 'chain-registry'] as const;
export type UpgradeSourceName = (typeof upgradeSourceNames)[number];

/** The names of the setting, in order; the check made by `parseUpgradeSources` is assumed. */
export function upgradeSourceList(text: string): UpgradeSourceName[] {
  return text
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '') as UpgradeSourceName[];
}

/** The setting's check: known names, each once; the value kept as `plan,registry`. */
export function parseUpgradeSources(text: string): Parsed<string> {
  const names = upgradeSourceList(text);
  if (names.length === 0) return { ok: false, message: `expected one or more of: ${upgradeSourceNames.join(', ')}` };
  for (const name of names) {
    if (!(upgradeSourceNames as readonly string[]).includes(name))
      return { ok: false, message: `unknown source ${JSON.stringify(name)}; expected one or more of: ${upgradeSourceNames.join(', ')}, comma-separated` };
  }
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) return { ok: false, message: `${twice} is listed twice; list each source once, in the order they are asked` };
  return { ok: true, value: names.join(',') };
}

interface SourceValues {
  upgradeSources?: unknown;
  registryUrl?: unknown;
  chainRegistryUrl?: unknown;
  checksumQuorum?: unknown;
}

/** Problems between the settings: a source named without its URL, a URL that is not one, a quorum no list can meet. */
export function upgradeSourceProblems(values: SourceValues, label: (key: keyof SourceValues) => string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (typeof values.upgradeSources !== 'string') return problems;
  const names = upgradeSourceList(values.upgradeSources);
  const urls = [
    ['registry', 'registryUrl'],
    ['chain-registry', 'chainRegistryUrl'],
  ] as const;
  for (const [name, key] of urls) {
    const text = typeof values[key] === 'string' ? values[key].trim() : '';
    if (text === '') {
      if (names.includes(name)) problems.push({ setting: label(key), message: `is required: CHAINVISOR_UPGRADE_SOURCES names ${name}` });
      continue;
    }
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
    if (url === undefined || !['https:', 'http:', 'file:'].includes(url.protocol))
      problems.push({ setting: label(key), value: redactSecretUrl(text), message: 'expected an https:// URL (http:// and file:// as the URL policy allows)' });
  }
  if (typeof values.checksumQuorum === 'number' && values.checksumQuorum > names.length)
    problems.push({
      setting: label('checksumQuorum'),
      value: String(values.checksumQuorum),
      message: `is more than the ${names.length} source(s) CHAINVISOR_UPGRADE_SOURCES lists, so no binary could ever be installed`,
    });
  return problems;
}
