/**
 * What the README and docs/ point at exists. Every relative link leads somewhere: the file exists and,
 * for a `#anchor` into Markdown, a heading of that file has that anchor as GitHub makes it (the heading's
 * text in lower case, punctuation dropped, spaces as hyphens, `-1`, `-2` … for repeats) or an `<a id>`
 * names it. Every `bench:*` script of package.json is in the README's list and in docs/benchmarks.md.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(fileURLToPath(import.meta.url), '../../..');

/** The lines of a Markdown file outside fenced code blocks. */
async function prose(file: string): Promise<string[]> {
  let fenced = false;
  return (await fs.readFile(file, 'utf8')).split('\n').filter((line) => {
    if (!/^\s*(```|~~~)/.test(line)) return !fenced;
    fenced = !fenced;
    return false;
  });
}

async function anchorsOf(file: string): Promise<Set<string>> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of await prose(file)) {
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] as string);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const text = (heading[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const repeat = seen.get(slug) ?? 0;
    seen.set(slug, repeat + 1);
    anchors.add(repeat === 0 ? slug : `${slug}-${repeat}`);
  }
  return anchors;
}

test('every relative link in the README and docs/ resolves, its #anchor included', async () => {
  const docs = (await fs.readdir(path.join(repo, 'docs'), { recursive: true })).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
  const broken: string[] = [];
  for (const file of ['README.md', ...docs]) {
    for (const line of await prose(path.join(repo, file))) {
      for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = match[1] as string;
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
        const [target, anchor] = link.split('#') as [string, string | undefined];
        const full = target === '' ? path.join(repo, file) : path.join(repo, path.dirname(file), decodeURIComponent(target));
        const exists = await fs.stat(full).then(
          () => true,
          () => false,
        );
        if (!exists) broken.push(`${file}: ${link} (no such file)`);
        else if (anchor !== undefined && full.endsWith('.md') && !(await anchorsOf(full)).has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test("every bench:* script is in the README's list of benchmarks and in docs/benchmarks.md", async () => {
  const { scripts } = JSON.parse(await fs.readFile(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const readme = await fs.readFile(path.join(repo, 'README.md'), 'utf8');
  const benchmarks = await fs.readFile(path.join(repo, 'docs', 'benchmarks.md'), 'utf8');
  const list = readme.slice(readme.indexOf('## Benchmarks'));
  const missing = Object.keys(scripts)
    .filter((name) => name.startsWith('bench:'))
    .flatMap((name) => [
      ...(list.includes(`npm run ${name} `) ? [] : [`${name} (README.md)`]),
      ...(benchmarks.includes(`npm run ${name} `) ? [] : [`${name} (docs/benchmarks.md)`]),
    ]);
  assert.deepEqual(missing, []);
});
