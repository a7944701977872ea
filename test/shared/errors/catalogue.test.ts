import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { settingKeys, settings } from '../../../src/config/index.js';
import { DownloadError, UrlRefusedError } from '../../../src/download/errors.js';
import { ChainvisorError, errorCatalogue, type ErrorCode, errorCodes, ExitCode, renderErrorsDoc } from '../../../src/shared/errors/index.js';
import { ChecksumMismatchError } from '../../../src/verify/errors.js';

const repo = path.resolve(fileURLToPath(import.meta.url), '../../../../..');

/** Names that look like codes but are not errors: environment variables and the code of a log line. */
const notErrors = new Map<string, string>([
  ['CHAINVISOR_RUN_ID', 'the environment variable chainvisor gives the node (src/guard/node-record.ts)'],
  ['CHAINVISOR_CONFIG', 'the environment variable naming the config file'],
  ['CHAINVISOR_RELEASE_SIGNING_KEY', "the key `npm run release` signs SHA256SUMS with (scripts/release-sign.ts), not a setting of chainvisor's"],
]);
/** A code on a log line that does not end chainvisor: `{ code: 'CODE', … }` handed to the logger. */
const loggedCode = /\bcode: '(CHAINVISOR_[A-Z0-9_]+)'/g;
const settingNames = new Set(settingKeys.map((key) => settings[key].env as string));

/** A code handed to ChainvisorError or to a subclass' super(): `super('CODE'` or `super('NameError', 'CODE'`. */
const raising = /(?:new ChainvisorError|super)\(\s*(?:'[A-Za-z]+Error',\s*)?'(CHAINVISOR_[A-Z0-9_]+)'/g;

interface Source {
  file: string;
  text: string;
}

async function sources(): Promise<Source[]> {
  const src = path.join(repo, 'src');
  const files = (await fs.readdir(src, { recursive: true })).filter((f) => f.endsWith('.ts')).sort();
  return Promise.all(files.map(async (f) => ({ file: `src/${f}`, text: await fs.readFile(path.join(src, f), 'utf8') })));
}

/** The text of the call whose opening parenthesis is at or after `from` (parentheses balanced). */
function callText(text: string, from: number): string {
  let i = text.indexOf('(', from) + 1;
  for (let depth = 1; depth > 0 && i < text.length; i++) depth += text[i] === '(' ? 1 : text[i] === ')' ? -1 : 0;
  return text.slice(from, i);
}

const catalogued = (code: string): code is ErrorCode => Object.hasOwn(errorCatalogue, code);
const exitName = new Map<string, number>(Object.entries(ExitCode));

describe('the error catalogue', () => {
  test('every CHAINVISOR_ literal in the sources is a catalogued code, a setting, or a known non-error name', async () => {
    const unknown: string[] = [];
    for (const { file, text } of await sources()) {
      if (file === 'src/shared/errors/catalogue.ts') continue;
      for (const match of text.matchAll(/['"`](CHAINVISOR_[A-Z0-9_]+)['"`]/g)) {
        const name = match[1] as string;
        if (!catalogued(name) && !settingNames.has(name) && !notErrors.has(name)) unknown.push(`${name} (${file})`);
      }
      for (const match of text.matchAll(raising)) {
        if (!catalogued(match[1] as string)) unknown.push(`${match[1]} raised in ${file}`);
      }
    }
    assert.deepEqual(unknown, [], 'add these codes to src/shared/errors/catalogue.ts, then run npm run build && node scripts/regen-docs.mjs');
  });

  test('every CHAINVISOR_ name in the docs and the README is a catalogued code, a setting, or a known non-error name', async () => {
    const docs = (await fs.readdir(path.join(repo, 'docs'), { recursive: true })).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
    const unknown: string[] = [];
    for (const file of ['README.md', ...docs]) {
      const text = await fs.readFile(path.join(repo, file), 'utf8');
      // A family (`CHAINVISOR_DOWNLOAD_*`) is not a name.
      for (const match of text.matchAll(/\bCHAINVISOR_[A-Z0-9_]*[A-Z0-9]\b(?!_?\*)/g)) {
        if (!catalogued(match[0]) && !settingNames.has(match[0]) && !notErrors.has(match[0])) unknown.push(`${match[0]} (${file})`);
      }
    }
    assert.deepEqual(unknown, [], 'the docs name codes that do not exist: use the catalogued name (docs/errors.md)');
  });

  test('every catalogued code is raised or logged somewhere, so the catalogue cannot rot', async () => {
    const raised = new Set<string>();
    for (const { file, text } of await sources()) {
      if (file === 'src/shared/errors/catalogue.ts') continue;
      for (const match of text.matchAll(raising)) raised.add(match[1] as string);
      for (const match of text.matchAll(loggedCode)) raised.add(match[1] as string);
    }
    assert.ok(raised.size > 40, `the scan found only ${raised.size} raised codes: is the pattern still right?`);
    assert.deepEqual(
      errorCodes.filter((code) => !raised.has(code)),
      [],
      'no source raises these codes any more: remove them from src/shared/errors/catalogue.ts',
    );
  });

  test('a throw site sets an exit code of its own only when the catalogue lists it for that code', async () => {
    const wrong: string[] = [];
    for (const { file, text } of await sources()) {
      for (const match of text.matchAll(raising)) {
        const code = match[1] as ErrorCode;
        const spec = errorCatalogue[code];
        if (spec === undefined) continue;
        const allowed = new Set<number>([spec.exit, ...('alsoExit' in spec ? spec.alsoExit.codes : [])]);
        const call = callText(text, match.index);
        for (const set of call.matchAll(/(?<![.\w])exitCode(?::\s*ExitCode\.(\w+)|\s*[,}]|:\s*exitCode\b)/g)) {
          const value = set[1] === undefined ? undefined : exitName.get(set[1]);
          if (value === undefined ? allowed.size === 1 : !allowed.has(value)) wrong.push(`${code} in ${file}: ${set[0]}`);
        }
      }
    }
    assert.deepEqual(wrong, [], "drop the site's exitCode (the catalogue's applies) or list the other exit code, and why, in the catalogue");
  });

  test('every entry has an exit code of the README, a description and a hint', () => {
    const exits = new Set<number>(Object.values(ExitCode));
    assert.ok(errorCodes.length >= 50);
    for (const code of errorCodes) {
      const spec = errorCatalogue[code];
      assert.ok(exits.has(spec.exit) && (spec.exit as number) !== ExitCode.ok, code);
      assert.ok(spec.when.length > 10 && spec.hint.length > 10, code);
      if ('alsoExit' in spec) {
        assert.ok(
          spec.alsoExit.codes.every((c) => exits.has(c) && c !== spec.exit),
          code,
        );
        assert.ok(spec.alsoExit.why.length > 10, code);
      }
    }
  });

  test('ChainvisorError takes its exit code and default hint from the catalogue', () => {
    const plain = new ChainvisorError('CHAINVISOR_HOME_LOCKED', 'taken');
    assert.equal(plain.exitCode, ExitCode.homeLocked);
    assert.equal(plain.hint, errorCatalogue.CHAINVISOR_HOME_LOCKED.hint);
    const specific = new ChainvisorError('CHAINVISOR_LAYOUT_INVALID', 'x', { hint: 'do this', exitCode: ExitCode.upgradeFailed });
    assert.equal(specific.hint, 'do this');
    assert.equal(specific.exitCode, ExitCode.upgradeFailed);
    // @ts-expect-error an uncatalogued code does not compile (and, from untyped code, is a bug: exit 1)
    assert.equal(new ChainvisorError('CHAINVISOR_NOT_A_CODE', 'x').exitCode, ExitCode.internal);
  });

  test('the upgrade errors share one base and keep their names and fields', () => {
    const mismatch = new ChecksumMismatchError({ what: 'linux/amd64', url: 'https://h/x' }, 'sha256:aa', 'sha256:bb', 3);
    assert.ok(mismatch instanceof ChainvisorError);
    assert.deepEqual(
      [mismatch.name, mismatch.code, mismatch.exitCode, mismatch.expected, mismatch.actual, mismatch.url, mismatch.bytes],
      ['ChecksumMismatchError', 'CHAINVISOR_CHECKSUM_MISMATCH', 79, 'sha256:aa', 'sha256:bb', 'https://h/x', 3],
    );
    assert.equal(mismatch.hint, errorCatalogue.CHAINVISOR_CHECKSUM_MISMATCH.hint);
    const failed = new DownloadError('binary', 'https://h/x', 'HTTP 404', { attempts: 1, status: 404, hint: 'fix the URL' });
    assert.deepEqual([failed.name, failed.url, failed.attempts, failed.status, failed.hint], ['DownloadError', 'https://h/x', 1, 404, 'fix the URL']);
    assert.match(failed.message, /failed after 1 attempt: HTTP 404$/);
    const refused = new UrlRefusedError('http://h/x', 'plain http', 'use https');
    assert.deepEqual([refused.name, refused.url, refused.hint, refused.exitCode], ['UrlRefusedError', 'http://h/x', 'use https', 79]);
  });

  test('docs/errors.md is generated from the catalogue and up to date', async () => {
    const doc = renderErrorsDoc();
    for (const code of errorCodes) assert.ok(doc.includes(`| \`${code}\` |`), `${code} has no row in docs/errors.md`);
    assert.equal(await fs.readFile(path.join(repo, 'docs', 'errors.md'), 'utf8'), doc, "run 'npm run build && node scripts/regen-docs.mjs'");
    assert.match(await fs.readFile(path.join(repo, 'README.md'), 'utf8'), /\(docs\/errors\.md\)/, 'the README links docs/errors.md');
  });
});
