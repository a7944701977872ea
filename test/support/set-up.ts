/**
 * Set-up steps run inside the test's own process: `chainvisor init` and `chainvisor add-upgrade` that
 * only prepare a home for what a test is about. The suite runs them well over 500 times, and a
 * process for each costs 0.12 CPU-s where the same command's code costs a few milliseconds here.
 * They run the command's own entry (src/cli's `main`: the same parsing, checks, files and exit codes),
 * with the environment the process would get and its output captured as execa captures it.
 *
 * A test about one of these commands runs it as a process (`cli`, not a set-up step), and so does
 * every set-up step when the tests run the release executable (CHAINVISOR_TEST_EXECUTABLE) or
 * bin/chainvisor.js itself (`makeHome(…, { bin: true })`): there the command is what is under test.
 */
import { PassThrough } from 'node:stream';

import { chainvisorExecutable } from './chainvisor-command.js';

const inProcess = new Set(['init', 'add-upgrade']);

/** Whether `chainvisor <args>` as a set-up step runs in this process. */
export function setsUpInProcess(args: readonly string[]): boolean {
  return chainvisorExecutable === undefined && inProcess.has(args[0] ?? '');
}

/** `chainvisor <args>` through the command's entry in this process: its exit code and output (one final newline taken off, as execa does). */
export async function runInProcess(
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const { main } = await import('../../src/cli/index.js');
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const texts = [stdout, stderr].map((stream) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    return () =>
      Buffer.concat(chunks)
        .toString('utf8')
        .replace(/\r?\n$/, '');
  });
  const exitCode = await main([...args], { env: { ...env }, stdout, stderr });
  stdout.end();
  stderr.end();
  return { exitCode, stdout: (texts[0] as () => string)(), stderr: (texts[1] as () => string)() };
}
