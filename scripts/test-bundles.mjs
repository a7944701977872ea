// The chainvisor command and the simulated node's binaries as the test run starts them: each bundled by
// esbuild from the compiled code (dist/), with the commands' `import()` calls kept as chunks loaded on
// demand, as the release executable carries them. A test run starts the command about 1,500 times and
// the simulated node a few hundred: from ~130 (a light command) to ~360 (`run`) files of dist/ and
// node_modules/, Node.js resolves, reads and links every one at every start, which was most of the
// suite's CPU. One file and its chunks start in half the time or less (bench: `config` 0.22 -> 0.14
// CPU-s, a refused `run start` 0.59 -> 0.26).
//
// The bundles are of the same compiled modules, nothing else: no define, no shim but `require` for the
// CommonJS packages. They sit at the depth of the modules they hold (dist/bundle/chainvisor/, three
// folders below the root as dist/src/cli/ is), so that chainvisor's version still comes from its
// package.json and pino-pretty and the .proto files still resolve from node_modules.
//
// Used by scripts/run-tests.mjs, which hands them to the tests through CHAINVISOR_TEST_BUNDLE (see
// test/support/chainvisor-command.ts) and SIMD_MAIN (packages/simd/src/package/build-versions.ts).
// Tests that must run bin/chainvisor.js itself (what npm installs) still do.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import * as esbuild from 'esbuild';

/**
 * CommonJS packages that find their own files by `__dirname` (@grpc/reflection's .proto files, pino's
 * worker): each such module gets its own file's folder and name back, as when Node.js loads it.
 */
const ownDirname = {
  name: 'own-dirname',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      // Not where the module has none to find, or declares its own (an ES module's `const __dirname = …`).
      if (!/\b__(dirname|filename)\b/.test(source) || /\b(var|let|const)\s+__(dirname|filename)\b/.test(source)) return undefined;
      const own = `var __dirname = ${JSON.stringify(path.dirname(args.path))}, __filename = ${JSON.stringify(args.path)};\n`;
      return { contents: own + source, loader: 'js' };
    });
  },
};

/**
 * `await import('undici')` of a CommonJS package gives its exports as named exports under Node.js; in an
 * ES module bundle esbuild gives only `default`. Each such dynamic import is sent through a small module
 * that names them again (the names read here, from the package itself).
 */
function namedCommonJs(root) {
  const requireHere = createRequire(path.join(root, 'package.json'));
  const isCommonJs = (file) => {
    if (file.endsWith('.cjs')) return true;
    if (file.endsWith('.mjs')) return false;
    for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const manifest = path.join(dir, 'package.json');
      if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type !== 'module';
    }
    return true;
  };
  return {
    name: 'named-commonjs',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind !== 'dynamic-import' || args.path.startsWith('node:')) return undefined;
        let file;
        try {
          file = createRequire(args.importer).resolve(args.path);
        } catch {
          return undefined;
        }
        if (!isCommonJs(file)) return undefined;
        return { path: args.path, namespace: 'named-commonjs', pluginData: { resolveDir: path.dirname(args.importer) } };
      });
      build.onLoad({ filter: /.*/, namespace: 'named-commonjs' }, (args) => {
        const names = Object.keys(requireHere(args.path)).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default');
        // require(): module.exports itself as `default`, as Node.js gives it (esbuild's default import of a
        // package marked __esModule would be its `default` export instead).
        const contents = `const m = require(${JSON.stringify(args.path)});\nexport default m;\nexport const { ${names.join(', ')} } = m;\n`;
        return { contents, loader: 'js', resolveDir: args.pluginData.resolveDir };
      });
    },
  };
}

/** Bundles both into `root`'s dist; resolves to `{ chainvisor, simd }`, the entry files. */
export async function buildTestBundles(root) {
  const targets = {
    chainvisor: { entry: 'bin/chainvisor.js', outdir: 'dist/bundle/chainvisor' },
    simd: { entry: 'packages/simd/dist/src/main.js', outdir: 'packages/simd/dist/bundle/simd' },
  };
  const out = {};
  await Promise.all(
    Object.entries(targets).map(async ([name, { entry, outdir }]) => {
      rmSync(path.join(root, outdir), { recursive: true, force: true });
      await esbuild.build({
        absWorkingDir: root,
        entryPoints: { [name]: entry },
        outdir,
        bundle: true,
        splitting: true,
        format: 'esm',
        platform: 'node',
        target: `node${process.versions.node}`,
        // unzipper's optional S3 source: chainvisor never opens archives from S3.
        external: ['@aws-sdk/client-s3'],
        // The CommonJS packages inside an ES module bundle call require() for Node's built-ins.
        banner: { js: "import { createRequire as __testBundleRequire } from 'node:module'; const require = __testBundleRequire(import.meta.url);" },
        plugins: [ownDirname, namedCommonJs(root)],
        legalComments: 'none',
        logLevel: 'warning',
      });
      out[name] = path.join(root, outdir, `${name}.js`);
    }),
  );
  return out;
}
