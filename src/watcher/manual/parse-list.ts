/**
 * The input syntaxes of `add-batch-upgrade`, as cosmovisor v1.7 reads them:
 *   --upgrade-list name:path:height,name:path:height   (the flag may also be repeated)
 *   --upgrade-file <file>   a headerless CSV of `name,path,height` lines, or a JSON array of plans
 *                           `{name, height, info?}` whose binaries are already installed (or downloadable).
 * Every problem of every entry is collected, so one run shows them all.
 */
import { ChainvisorError, UsageError } from '../../shared/errors/index.js';
import { readBounded } from '../../shared/fsread/index.js';
import { parseQueue } from './file.js';

export interface ManualEntry {
  name: string;
  /** The binary to install; absent for JSON entries (already installed or downloaded from `info`). */
  source?: string;
  height: number;
  info: string;
  /** Queue it without a restart of the running node (file.ts's `waitForRestart`). */
  waitForRestart?: true;
}

function parseHeight(text: string, where: string, problems: string[]): number {
  const value = text.trim();
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) <= 0) {
    problems.push(`${where}: the height ${JSON.stringify(text)} is not a whole number above 0`);
    return 0;
  }
  return Number(value);
}

function entryOf(fields: string[], where: string, problems: string[]): ManualEntry | undefined {
  const [name = '', source = '', height = ''] = fields.map((f) => f.trim());
  const before = problems.length;
  if (name === '') problems.push(`${where}: the upgrade name is empty`);
  if (source === '') problems.push(`${where}: the binary path is empty`);
  const h = parseHeight(height, where, problems);
  return problems.length === before ? { name, source, height: h, info: '' } : undefined;
}

/** `name:path:height` items, comma-separated (and/or one per repeated flag). */
export function parseUpgradeList(values: readonly string[]): ManualEntry[] {
  const items = values
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0)
    throw new UsageError('--upgrade-list is empty', 'give name:path:height items, for example --upgrade-list v2:/opt/v2/simd:1000,v3:/opt/v3/simd:2000');
  const problems: string[] = [];
  const entries: ManualEntry[] = [];
  items.forEach((item, i) => {
    // The path may itself hold ':' (rare); the name is before the first, the height after the last.
    const first = item.indexOf(':');
    const last = item.lastIndexOf(':');
    if (first === -1 || first === last) {
      problems.push(`item ${i + 1} (${JSON.stringify(item)}): expected name:path:height`);
      return;
    }
    const entry = entryOf([item.slice(0, first), item.slice(first + 1, last), item.slice(last + 1)], `item ${i + 1} (${JSON.stringify(item)})`, problems);
    if (entry) entries.push(entry);
  });
  if (problems.length > 0)
    throw new UsageError(`invalid --upgrade-list: ${problems.join('; ')}`, 'each item is name:path-to-binary:height, items separated by commas');
  return entries;
}

/** A CSV line split on commas, with double-quoted fields as encoding/csv allows. */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field.trim() === '') {
      field = '';
      quoted = true;
    } else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields;
}

export function parseUpgradeCsv(text: string, file: string): ManualEntry[] {
  const problems: string[] = [];
  const entries: ManualEntry[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const fields = csvFields(line);
    const where = `${file} line ${i + 1}`;
    if (fields.length !== 3) {
      problems.push(`${where}: expected 3 fields name,path,height, got ${fields.length}`);
      return;
    }
    const entry = entryOf(fields, where, problems);
    if (entry) entries.push(entry);
  });
  if (problems.length > 0) throw badFile(file, problems.join('; '));
  if (entries.length === 0) throw badFile(file, 'it lists no upgrade');
  return entries;
}

export async function readUpgradeFile(file: string): Promise<ManualEntry[]> {
  // A regular file of at most 1 MiB: a FIFO given by mistake must not hang the command.
  const read = await readBounded(file, 1024 * 1024);
  if (read.status !== 'ok') {
    const reason = read.status === 'missing' ? 'the file does not exist' : read.reason;
    throw new ChainvisorError('CHAINVISOR_BATCH_FILE_UNREADABLE', `could not read the upgrade file ${file}: ${reason}`, {
      hint: 'give the path of a CSV file (name,path,height per line) or of a JSON array of plans',
    });
  }
  const text = read.text;
  if (text.trimStart().startsWith('[')) {
    const parsed = parseQueue(text);
    if (!parsed.ok) throw badFile(file, parsed.reason);
    if (parsed.plans.length === 0) throw badFile(file, 'it lists no upgrade');
    return parsed.plans.map((p) => ({ name: p.name, height: p.height, info: p.info }));
  }
  return parseUpgradeCsv(text, file);
}

function badFile(file: string, reason: string): ChainvisorError {
  return new ChainvisorError('CHAINVISOR_BATCH_FILE_INVALID', `invalid upgrade file ${file}: ${reason}`, {
    hint: 'a headerless CSV with one name,path-to-binary,height per line, or a JSON array of {"name", "height", "info"}',
  });
}
