/**
 * The layering of src/ as a test, not a convention (#25): the folders at the top of src/ are named here
 * from the top floor down, and an import may only run down (or stay in its folder). It fails on an
 * upward or sideways import, on an import circle between files or between folders, and on an import
 * that reaches past another folder's `index.ts` into its internals. Reads the TypeScript sources next
 * to the compiled tests; type-only and dynamic imports count as imports.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const srcDir = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * The floors of src/, top first. A folder imports only folders on floors below its own; two folders on
 * one floor do not import each other.
 */
export const floors: readonly (readonly string[])[] = [
  ['cli'], // the command and its sub-commands
  ['rehearsal'], // the upgrade tried on a copy before the height
  ['supervisor', 'observe'], // the run loop and the upgrade sequence; status, metrics, HTTP, webhooks
  ['download'], // a plan's binary fetched (and staged before the halt)
  ['verify'], // checksum, archives, safe extraction, the binary found
  ['guard', 'home'], // double-sign protection: the home lock, the sign guard, the twin check; what chainvisor owns on disk: layout, backup
  ['watcher'], // detection: the halt-file watch, the plan on chain, the verdict "due now"
  ['chain'], // what the chain says: its client over gRPC and CometBFT RPC, the files its upgrade module writes
  ['config'], // settings, validated together
  ['shared'], // errors, log, events, files, processes, the HTTP client, the alert channels (config lists their settings)
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** File (relative to src/, `/`-separated) → the files of src/ it imports, type-only and dynamic imports included. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const rel = (abs: string) => path.relative(srcDir, abs).split(path.sep).join('/');
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    const specifiers = [
      ...[...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)].map((m) => m[1] as string),
      ...[...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1] as string),
    ];
    graph.set(
      rel(file),
      specifiers.map((s) => rel(path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')))),
    );
  }
  return graph;
}

/** One circle of the graph, or undefined when it has none. */
export function findCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found !== undefined) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    if (state.get(node) !== undefined) continue;
    const found = visit(node);
    if (found !== undefined) return found;
  }
  return undefined;
}

const folderOf = (file: string) => file.split('/')[0] as string;

/** The floor of each top folder: 0 is the top. */
const floorOf = new Map(floors.flatMap((names, floor) => names.map((name) => [name, floor] as const)));

/** Imports that run up a floor or sideways on one floor. */
export function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const offenders: string[] = [];
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    for (const target of imports) {
      const to = folderOf(target);
      if (to === from) continue;
      const up = floorOf.get(from);
      const down = floorOf.get(to);
      if (up === undefined || down === undefined || down <= up) offenders.push(`${file} → ${target}`);
    }
  }
  return offenders;
}

/**
 * Imports that reach into another folder past its `index.ts`: a file outside a folder that has an
 * `index.ts` imports that index, never a file beside it. (A folder without an `index.ts`, such as
 * shared/, is a shelf: its files and sub-folders are each their own face.)
 */
export function pastIndexImports(graph: ReadonlyMap<string, readonly string[]>, hasIndex: (folder: string) => boolean): string[] {
  const offenders: string[] = [];
  for (const [file, imports] of graph) {
    for (const target of imports) {
      const folder = path.posix.dirname(target);
      if (folder === '.' || `${path.posix.dirname(file)}/`.startsWith(`${folder}/`)) continue;
      if (hasIndex(folder) && path.posix.basename(target) !== 'index.ts') offenders.push(`${file} → ${target}`);
    }
  }
  return offenders;
}

test('the import checks see the sources and would see each fault', () => {
  const graph = importGraph();
  assert.ok(graph.size > 150, `only ${graph.size} source files under ${srcDir}`);
  assert.ok(graph.get('cli/index.ts')?.length);
  assert.deepEqual(
    findCircle(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
      ]),
    ),
    ['a', 'b', 'c', 'a'],
  );
  assert.equal(
    findCircle(
      new Map([
        ['a', ['b']],
        ['b', []],
        ['c', ['a', 'b']],
      ]),
    ),
    undefined,
  );
  assert.deepEqual(upwardImports(new Map([['verify/x.ts', ['download/index.ts', 'home/layout/index.ts']]])), ['verify/x.ts → download/index.ts']);
  assert.deepEqual(upwardImports(new Map([['observe/x.ts', ['supervisor/index.ts']]])), ['observe/x.ts → supervisor/index.ts']);
  assert.deepEqual(upwardImports(new Map([['nowhere/x.ts', ['shared/log.ts']]])), ['nowhere/x.ts → shared/log.ts']);
  assert.deepEqual(
    pastIndexImports(
      new Map([
        ['download/fetch.ts', ['verify/index.ts', 'verify/checksum.ts', 'shared/log.ts', 'download/http.ts']],
        ['verify/unpack.ts', ['verify/checksum.ts']],
      ]),
      (folder) => folder === 'verify',
    ),
    ['download/fetch.ts → verify/checksum.ts'],
  );
});

test('every folder at the top of src/ is on a floor, and there are at most 12', () => {
  const top = readdirSync(srcDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  assert.deepEqual(top, [...floorOf.keys()].sort());
  assert.ok(top.length <= 12, `${top.length} folders at the top of src/`);
});

/** The floors as a document gives them: `cli → rehearsal → supervisor | observe → …` (one line or several). */
export function floorsInText(text: string): string[][] | undefined {
  const list = /\bcli\s*→[^.)]*?\bshared\b/.exec(text.replace(/\s+/g, ' '))?.[0];
  return list?.split('→').map((floor) => floor.split('|').map((name) => name.trim()));
}

test("README's layout table gives each folder of src/ its floor", () => {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const rows = [...readme.matchAll(/^\| `src\/([a-z]+)\/` \|.*\| (\d+) \|$/gm)].map((m) => [m[1], Number(m[2])] as const);
  assert.deepEqual(new Map(rows), new Map([...floorOf].map(([name, floor]) => [name, floor + 1])));
});

test('the floors are the ones CONVENTIONS.md lists', (t) => {
  const conventions = fileURLToPath(new URL('../../../shared/CONVENTIONS.md', import.meta.url));
  if (!existsSync(conventions)) {
    t.skip(`SKIPPED: ${conventions} is not beside this checkout`);
    return;
  }
  assert.deepEqual(floorsInText(readFileSync(conventions, 'utf8')), floors);
});

test('no import runs up a floor or sideways', () => {
  assert.deepEqual(upwardImports(importGraph()), []);
});

test('no import circle between the files of src/, nor between its folders', () => {
  const graph = importGraph();
  const circle = findCircle(graph);
  assert.equal(circle, undefined, `import circle: ${circle?.join(' → ')}`);
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const edges = folders.get(folderOf(file)) ?? new Set<string>();
    folders.set(folderOf(file), edges);
    for (const target of imports) if (folderOf(target) !== folderOf(file)) edges.add(folderOf(target));
  }
  const folderCircle = findCircle(new Map([...folders].map(([folder, edges]) => [folder, [...edges]])));
  assert.equal(folderCircle, undefined, `folder circle: ${folderCircle?.join(' → ')}`);
});

test("no import reaches past another folder's index.ts", () => {
  assert.deepEqual(
    pastIndexImports(importGraph(), (folder) => existsSync(path.join(srcDir, folder, 'index.ts'))),
    [],
  );
});
