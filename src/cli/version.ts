/**
 * chainvisor's own version and the git commit it was built from. The release build (`npm run release`)
 * writes both into the executable at build time; run through `bin/chainvisor.js` (a clone or an npm
 * install), the version comes from package.json and the commit is not known.
 */
import { fileURLToPath } from 'node:url';

import * as v from 'valibot';

import { readBoundedSync } from '../shared/fsread/index.js';
import { parseJson } from '../shared/json.js';

// Replaced by the release bundler with string literals; not defined at all in the tsc build.
declare const CHAINVISOR_BUILD_VERSION: string | undefined;
declare const CHAINVISOR_BUILD_COMMIT: string | undefined;

/** chainvisor's own version: written in at build time, else package.json's. */
export const version: string = typeof CHAINVISOR_BUILD_VERSION === 'string' ? CHAINVISOR_BUILD_VERSION : packageVersion();

/** The git commit the executable was built from (`-dirty` when tracked files had changes); undefined outside a release build. */
export const commit: string | undefined = typeof CHAINVISOR_BUILD_COMMIT === 'string' ? CHAINVISOR_BUILD_COMMIT : undefined;

/** chainvisor's own package.json (read by the one bounded reader, as every file); `unknown` when it cannot be read. */
function packageVersion(): string {
  const read = readBoundedSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 1024 * 1024);
  const parsed = read.status === 'ok' ? parseJson(read.text, v.object({ version: v.string() })) : undefined;
  return parsed?.ok ? parsed.value.version : 'unknown';
}
