/**
 * The `chainvisor` command the tests run, as a program and its arguments. By default the repository's
 * `bin/chainvisor.js` on the Node.js running the tests, or, under scripts/run-tests.mjs, the same code
 * bundled (CHAINVISOR_TEST_BUNDLE, see scripts/test-bundles.mjs), which starts in half the CPU. With
 * CHAINVISOR_TEST_EXECUTABLE set, that file instead (the release executable,
 * `release/chainvisor-linux-x64`): CI runs the command-line and end-to-end tests both ways, so the
 * executable is tested as the product.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's `bin/chainvisor.js` (tests run from dist/test/…). */
export const chainvisorBin = path.resolve(fileURLToPath(import.meta.url), '../../../../bin/chainvisor.js');

/** The release executable under test, absolute; undefined when the tests run `bin/chainvisor.js`. */
export const chainvisorExecutable: string | undefined = process.env.CHAINVISOR_TEST_EXECUTABLE
  ? path.resolve(process.env.CHAINVISOR_TEST_EXECUTABLE)
  : undefined;

/** bin/chainvisor.js bundled with what it imports (set by scripts/run-tests.mjs), absolute; undefined when the tests run bin/chainvisor.js itself. */
const chainvisorBundle: string | undefined = process.env.CHAINVISOR_TEST_BUNDLE ? path.resolve(process.env.CHAINVISOR_TEST_BUNDLE) : undefined;

/** The executable under test, else `entry` on this Node. */
function commandOf(entry: string, args: readonly string[]): [string, string[]] {
  return chainvisorExecutable === undefined ? [process.execPath, [entry, ...args]] : [chainvisorExecutable, [...args]];
}

/** `[file, args]` that run `chainvisor <args>`, for execa or spawn. */
export function chainvisorCommand(args: readonly string[]): [string, string[]] {
  return commandOf(chainvisorBundle ?? chainvisorBin, args);
}

/** `[file, args]` that run `chainvisor <args>` as npm installs it, bin/chainvisor.js, never the bundle (the executable when under test). */
export function chainvisorBinCommand(args: readonly string[]): [string, string[]] {
  return commandOf(chainvisorBin, args);
}
