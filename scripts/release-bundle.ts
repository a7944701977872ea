/**
 * The release executable's JavaScript, in two parts, so that a command compiles only what it uses.
 *
 * A single-executable application runs one injected script and cannot load modules from disk. One
 * 2.7 MB bundle would make V8 compile all of it at every start (~75 ms of a `help` here), and would
 * load every built-in module any part imports (zlib, http2, tls, …). So:
 *
 * - `main` (CommonJS, the SEA's main script): `bin/chainvisor.js`, the command line and every command's
 *   module (each evaluated only when its command runs), with what they import statically: settings,
 *   the layout, status. That is all `help`, `version`, `status`, `config`, `init` and
 *   `show-upgrade-info` need. CommonJS, not ESM: a module's built-in modules are then required when
 *   the module is evaluated, not all at the start (ESM output hoists every `import 'node:…'` to the top).
 * - `lazy` (CommonJS, an SEA asset): every module the commands load with `await import(…)` (the
 *   supervisor, gRPC, pino, prom-client, downloads and archives, execa) and what they import. It is read
 *   and compiled on the first such `import()`. Modules of `main` it imports are not copied: it is handed
 *   `main`'s own instances (one `ChainvisorError` class, one copy of each module's state).
 *
 * Run through `bin/chainvisor.js` (no bundle), those `import()` calls are plain Node.js imports.
 */
import fs from 'node:fs';
import path from 'node:path';

import * as esbuild from 'esbuild';

export interface BundleOptions {
  root: string;
  outDir: string;
  /** esbuild's target, e.g. node26.10.0 */
  target: string;
  define: Record<string, string>;
  fail(message: string, hint: string): never;
}

export interface Bundles {
  main: string;
  /** SEA asset name → bundle file: `lazy`, and one per package of `apartPackages` the lazy part uses. */
  assets: Record<string, string>;
  /** Every file bundled into any part, relative to the root (node_modules/… for dependencies). */
  inputs: string[];
}

const lazyAsset = 'chainvisor-lazy.cjs';

/**
 * Packages the lazy part does not hold but loads from an asset of their own on first require: what an
 * idle `run` never uses (downloads, archives, metrics off, pre-upgrade's process runner, human-readable
 * logs). V8 keeps the whole source of a compiled script for as long as its code lives, so each of
 * these in the lazy part would stay in memory for good (undici alone is 1.4 MB of it) once a
 * command loads the supervisor.
 */
export const apartPackages = ['undici', 'tar', 'unzipper', 'xz-decompress', 'unbzip2-stream', 'prom-client', 'execa', 'pino-pretty'];
const apartAsset = (name: string) => `chainvisor-package-${name}.cjs`;
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const sharedPrefix = 'chainvisor-shared:';
const lazyNamespace = 'chainvisor-lazy';
const runtimeId = 'chainvisor-lazy-runtime';

export async function bundle(options: BundleOptions): Promise<Bundles> {
  const { root, outDir } = options;
  const srcDir = path.join(root, 'dist', 'src');
  const inSrc = (file: string) => file.startsWith(srcDir + path.sep);
  const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const common: esbuild.BuildOptions = {
    bundle: true,
    platform: 'node',
    target: options.target,
    define: options.define,
    // unzipper's optional S3 source: chainvisor never opens archives from S3.
    external: ['@aws-sdk/client-s3'],
    legalComments: 'none',
    sourcemap: false,
    logLevel: 'warning',
    absWorkingDir: root,
  };

  // What the commands load with import(): their resolved files (or package names), in `lazy`.
  const lazyTargets = new Map<string, string>();
  const lazyImports: esbuild.Plugin = {
    name: 'lazy-imports',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || !inSrc(args.importer) || args.path.startsWith('node:')) return undefined;
        // The commands' own modules stay in `main` (evaluated only when their command runs): what they load
        // with import() is the lazy part. Otherwise every command, `status` and `version` too, would compile it.
        if (rel(args.importer) === 'dist/src/cli/commands/registry.js') return undefined;
        const resolved = await build.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const key = inSrc(resolved.path) ? rel(resolved.path) : args.path;
        lazyTargets.set(key, resolved.path);
        return { path: key, namespace: lazyNamespace };
      });
      // Evaluated on the first import(): the module's exports, taken from `lazy`.
      build.onLoad({ filter: /.*/, namespace: lazyNamespace }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(runtimeId)}).loadLazy(${JSON.stringify(args.path)});`,
        loader: 'js',
        resolveDir: root,
      }));
      build.onResolve({ filter: new RegExp(`^${runtimeId}$`) }, () => ({ path: runtimeId, namespace: runtimeId }));
    },
  };

  // Pass 1: which of dist/src `main` holds (the static graph of bin/chainvisor.js).
  const probe = await esbuild.build({
    ...common,
    entryPoints: [path.join(root, 'bin', 'chainvisor.js')],
    format: 'esm',
    write: false,
    outfile: path.join(outDir, 'probe.mjs'),
    metafile: true,
    plugins: [
      lazyImports,
      {
        name: 'runtime-stub',
        setup: (b) => b.onLoad({ filter: /.*/, namespace: runtimeId }, () => ({ contents: 'export function loadLazy() {}', loader: 'js' })),
      },
    ],
  });
  const shared = Object.keys(probe.metafile.inputs)
    .filter((input) => input.startsWith('dist/src/'))
    .sort();

  // Pass 2: `main`, with the loader of `lazy` and a table of its own modules to hand over.
  const runtime = [
    "import { getAsset } from 'node:sea';",
    "import vm from 'node:vm';",
    ...shared.map((file, i) => `import * as shared${i} from ${JSON.stringify(path.join(root, file))};`),
    `const shared = { ${shared.map((file, i) => `${JSON.stringify(file)}: shared${i}`).join(', ')} };`,
    'let lazy;',
    `const apart = new Set(${JSON.stringify(apartPackages)});`,
    'const packages = new Map();',
    '/** A package kept apart: its asset compiled on the first require of any of its modules. */',
    'function requireApart(id) {',
    "  const name = id.split('/').slice(0, id.startsWith('@') ? 2 : 1).join('/');",
    '  let modules = packages.get(name);',
    '  if (modules === undefined) {',
    `    const source = getAsset(\`chainvisor-package-\${name}.cjs\`, 'utf8');`,
    `    const run = vm.compileFunction(source, ['exports', 'require', 'module'], { filename: \`chainvisor-package-\${name}.cjs\` });`,
    '    const module = { exports: {} };',
    '    run(module.exports, requireInLazy, module);',
    '    modules = module.exports.default;',
    '    packages.set(name, modules);',
    '  }',
    '  const found = modules[id];',
    "  if (found === undefined) throw new Error(`chainvisor: module ${id} is missing from the executable's package ${name}`);",
    '  return found();',
    '}',
    'function requireInLazy(id) {',
    `  if (id.startsWith(${JSON.stringify(sharedPrefix)})) return shared[id.slice(${sharedPrefix.length})];`,
    "  const name = id.split('/').slice(0, id.startsWith('@') ? 2 : 1).join('/');",
    '  return apart.has(name) ? requireApart(id) : require(id);',
    '}',
    'export function loadLazy(key) {',
    '  if (lazy === undefined) {',
    `    const source = getAsset(${JSON.stringify(lazyAsset)}, 'utf8');`,
    `    const run = vm.compileFunction(source, ['exports', 'require', 'module'], { filename: ${JSON.stringify(lazyAsset)} });`,
    '    const module = { exports: {} };',
    `    run(module.exports, requireInLazy, module);`,
    '    lazy = module.exports.default;',
    '  }',
    '  const found = lazy[key];',
    "  if (found === undefined) throw new Error(`chainvisor: module ${key} is missing from the executable's lazy part`);",
    '  return found();',
    '}',
  ].join('\n');
  const main = path.join(outDir, 'chainvisor.cjs');
  const inputs = new Set<string>();
  await esbuild
    .build({
      ...common,
      entryPoints: [path.join(root, 'bin', 'chainvisor.js')],
      format: 'cjs',
      outfile: main,
      // version.ts reads package.json through import.meta only where no version was written in (not here).
      logOverride: { 'empty-import-meta': 'silent' },
      metafile: true,
      plugins: [
        lazyImports,
        { name: 'runtime', setup: (b) => b.onLoad({ filter: /.*/, namespace: runtimeId }, () => ({ contents: runtime, loader: 'js', resolveDir: root })) },
      ],
    })
    .then((result) => {
      for (const input of Object.keys(result.metafile.inputs)) inputs.add(input);
      const inMain = Object.keys(result.metafile.inputs)
        .filter((input) => input.startsWith('dist/src/'))
        .sort();
      if (inMain.join('\n') !== shared.join('\n'))
        options.fail('the two passes over bin/chainvisor.js disagree on its modules', 'a bug in scripts/release-bundle.ts');
    });

  // Pass 3: `lazy`, every import() target; modules of `main` are taken from it, not copied. Sorted: the
  // resolver runs concurrently, and the same input must give the same bytes.
  const targets = [...lazyTargets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // A package is required by name, so that one kept apart stays out of this part.
  const entry = `module.exports.default = { ${targets.map(([key, file]) => `${JSON.stringify(key)}: () => require(${JSON.stringify(key.startsWith('dist/') ? file : key)})`).join(', ')} };`;
  const sharedSet = new Set(shared);
  const lazy = path.join(outDir, lazyAsset);
  const lazyResult = await esbuild.build({
    ...common,
    metafile: true,
    stdin: { contents: entry, resolveDir: root, sourcefile: 'chainvisor-lazy-entry.js', loader: 'js' },
    format: 'cjs',
    outfile: lazy,
    // A compiled function has no module loader behind import(): an import() of a module of `main` (or of
    // any other external) becomes a require of it, resolved through requireInLazy.
    supported: { 'dynamic-import': false },
    external: [...(common.external ?? []), ...apartPackages, ...apartPackages.map((name) => `${name}/*`)],
    plugins: [
      {
        name: 'shared-modules',
        setup(build) {
          build.onResolve({ filter: /^\.\.?\// }, async (args) => {
            if (args.pluginData === 'shared-modules' || !inSrc(args.importer)) return undefined;
            const resolved = await build.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              importer: args.importer,
              pluginData: 'shared-modules',
            });
            if (resolved.errors.length > 0) return { errors: resolved.errors };
            return sharedSet.has(rel(resolved.path)) ? { path: sharedPrefix + rel(resolved.path), external: true } : { path: resolved.path };
          });
        },
      },
      lazyPinoPretty(options.fail),
      apartDynamicImports,
    ],
  });
  for (const input of Object.keys(lazyResult.metafile.inputs)) inputs.add(input);

  // Pass 4: each package kept apart, with every module of it the lazy part requires, in an asset of its own.
  const required = new Map<string, Set<string>>();
  for (const output of Object.values(lazyResult.metafile.outputs)) {
    for (const { path: specifier, external } of output.imports) {
      const name = packageOf(specifier);
      if (external && apartPackages.includes(name)) required.set(name, (required.get(name) ?? new Set()).add(specifier));
    }
  }
  const assets: Record<string, string> = { [lazyAsset]: lazy };
  for (const [name, specifiers] of [...required].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const file = path.join(outDir, apartAsset(name));
    const modules = [...specifiers].sort().map((specifier) => `${JSON.stringify(specifier)}: () => require(${JSON.stringify(specifier)})`);
    const result = await esbuild.build({
      ...common,
      metafile: true,
      stdin: { contents: `module.exports.default = { ${modules.join(', ')} };`, resolveDir: root, sourcefile: `${name}-entry.js`, loader: 'js' },
      format: 'cjs',
      outfile: file,
    });
    for (const input of Object.keys(result.metafile.inputs)) inputs.add(input);
    assets[apartAsset(name)] = file;
  }
  for (const file of [main, ...Object.values(assets)]) asciiOnly(file);
  return { main, assets, inputs: [...inputs].sort() };
}

/**
 * An `import()` of a package kept apart becomes a require of it: a compiled function (how the lazy part
 * runs) has no module loader behind `import()`, and the package asset is CommonJS.
 */
const apartDynamicImports: esbuild.Plugin = {
  name: 'apart-dynamic-imports',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'dynamic-import' && apartPackages.includes(packageOf(args.path)) ? { path: args.path, namespace: 'apart-import' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'apart-import' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Rewrites every character past ASCII as a `\\u` escape. esbuild already escapes them in strings and
 * regular expressions, but keeps comments as written, and one curly quote in a dependency's comment
 * (undici has some) makes V8 hold the whole 4 MB source, which stays in memory as long as its code
 * does, as a two-byte string: twice the memory of an ASCII one. An escape means the same character in
 * a string, a template or a regular expression, and nothing in a comment.
 */
function asciiOnly(file: string): void {
  const source = fs.readFileSync(file, 'utf8');
  const escaped = source.replace(/[^\u0000-\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (escaped !== source) fs.writeFileSync(file, escaped);
}

/**
 * src/shared/log loads pino-pretty through createRequire(import.meta.url) so that it stays out of memory unless
 * logs are human-readable; a bundler cannot follow that call, and a CommonJS bundle has no import.meta.
 * In the bundle it becomes a plain `require('pino-pretty')`, bundled as a module evaluated on first call:
 * the same laziness.
 */
function lazyPinoPretty(fail: BundleOptions['fail']): esbuild.Plugin {
  return {
    name: 'lazy-pino-pretty',
    setup(build) {
      build.onLoad({ filter: /[\\/]dist[\\/]src[\\/]shared[\\/]log\.js$/ }, async (args) => {
        let source = await fs.promises.readFile(args.path, 'utf8');
        for (const [from, to] of [
          ['const requireCjs = createRequire(import.meta.url);', 'const requireCjs = require;'],
          ["requireCjs('pino-pretty')", "require('pino-pretty')"],
        ] as const) {
          if (!source.includes(from))
            fail(`"${from}" is no longer in ${args.path}`, 'update lazyPinoPretty in scripts/release-bundle.ts to the way src/shared/log loads pino-pretty');
          source = source.replaceAll(from, to);
        }
        return { contents: source, loader: 'js' };
      });
    },
  };
}
