/**
 * The layout of the simulated node's code: no import circle between files, and folders import one
 * way (core/ at the bottom of the modules, then upgrade/, gov/, and chain/ composing them). Reads
 * the TypeScript sources next to the compiled tests.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const srcDir = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** File (relative to src/, `/`-separated) → the files of src/ it imports, type-only imports included. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    const specifiers = [
      ...[...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)].map((m) => m[1] as string),
      ...[...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1] as string),
    ];
    const rel = (abs: string) => path.relative(srcDir, abs).split(path.sep).join('/');
    graph.set(
      rel(file),
      specifiers.map((s) => rel(path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')))),
    );
  }
  return graph;
}

/** One circle of the graph, or undefined when it has none. */
function findCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
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

const folderOf = (file: string) => (file.includes('/') ? `${file.split('/')[0]}/` : file);

test('the import checks see the sources and would see a circle', () => {
  const graph = importGraph();
  assert.ok(graph.size > 50, `only ${graph.size} source files under ${srcDir}`);
  assert.ok(graph.get('chain/app.ts')?.includes('core/msg.ts'));
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
});

test('no import circle between the files of src/', () => {
  const circle = findCircle(importGraph());
  assert.equal(circle, undefined, `import circle: ${circle?.join(' → ')}`);
});

test('folders import one way: core/ at the bottom, then upgrade/, gov/, chain/', () => {
  const folders = new Map<string, Set<string>>();
  const offenders: string[] = [];
  const rank: Record<string, number> = { 'core/': 0, 'upgrade/': 1, 'gov/': 2, 'chain/': 3 };
  for (const [file, imports] of importGraph()) {
    const from = folderOf(file);
    const edges = folders.get(from) ?? new Set<string>();
    folders.set(from, edges);
    for (const target of imports) {
      const to = folderOf(target);
      if (to === from) continue;
      edges.add(to);
      if (rank[from] !== undefined && rank[to] !== undefined && rank[to] > rank[from]) offenders.push(`${file} → ${target}`);
    }
  }
  assert.deepEqual(offenders, []);
  const circle = findCircle(new Map([...folders].map(([folder, edges]) => [folder, [...edges]])));
  assert.equal(circle, undefined, `folder circle: ${circle?.join(' → ')}`);
});
