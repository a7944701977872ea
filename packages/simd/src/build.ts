/**
 * `node packages/simd/dist/src/build.js <out> [--name simd] [--base-url <url>]` (also `npm run sim:build -- <out>`):
 * builds every version of the simulated node into <out> and prints what it wrote.
 */
import { parseArgs } from './cli/args.js';
import { buildVersions } from './package/build-versions.js';
import { SimError } from './util/errors.js';

async function main(argv: readonly string[]): Promise<number> {
  try {
    const { strings, booleans, positionals } = parseArgs(argv, { flags: { name: 'string', 'base-url': 'string', help: 'boolean' } });
    if (booleans.help || positionals.length !== 1) {
      process.stderr.write('usage: node packages/simd/dist/src/build.js <out-dir> [--name simd] [--base-url http://127.0.0.1:8080/]\n');
      return booleans.help ? 0 : 64;
    }
    const built = await buildVersions({ out: positionals[0] as string, name: strings.name, baseUrl: strings['base-url'] });
    for (const v of Object.values(built.versions)) {
      process.stdout.write(`${v.version}\t${v.bin}\n\t${v.tarGz}\n\t${v.zip}\n\t${v.infoFile}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof SimError) {
      process.stderr.write(`Error: ${error.message}\n${error.hint === undefined ? '' : `Hint: ${error.hint}\n`}`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
