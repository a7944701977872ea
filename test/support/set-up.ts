/**
 * The `chainvisor` command run by the tests, and the set-up steps among those runs: `chainvisor init`
 * and `chainvisor add-upgrade` that only prepare a home for what a test is about. The suite runs those
 * well over 500 times, and a process for each costs 0.12 CPU-s where the same command's code costs a
 * few milliseconds in the test's own process. There they run the command's own entry (src/cli's
 * `main`: the same parsing, checks, files and exit codes), with the environment the process would get
 * and its output captured as execa captures it.
 *
 * A test about one of these commands runs it as a process (`runChainvisor`, a home's `cli`), and so
 * does every set-up step when the tests run the release executable (CHAINVISOR_TEST_EXECUTABLE) or
 * bin/chainvisor.js itself (`makeHome(…, { bin: true })`): there the command is what is under test.
 */
import { PassThrough } from 'node:stream';

import { execa } from 'execa';

import { chainvisorBinCommand, chainvisorCommand, chainvisorExecutable } from './chainvisor-command.js';

export interface CliResult {
  exitCode: number | undefined;
  signal: string | undefined;
  stdout: string;
  stderr: string;
}

type Env = Record<string, string | undefined>;

const inProcess = new Set(['init', 'add-upgrade']);

/** `chainvisor <args>` as a process with exactly `env`; `bin`: bin/chainvisor.js itself, never the tests' bundle. */
export async function runChainvisor(args: readonly string[], env: Env, options: { bin?: boolean } = {}): Promise<CliResult> {
  const r = await execa(...(options.bin ? chainvisorBinCommand : chainvisorCommand)(args), {
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  });
  return { exitCode: r.exitCode, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** A set-up step that must succeed: in this process where it may be, else as a process; fails with what the command said. */
export async function setUp(args: readonly string[], env: Env, options: { bin?: boolean } = {}): Promise<CliResult> {
  const inHere = !options.bin && chainvisorExecutable === undefined && inProcess.has(args[0] ?? '');
  const r = inHere ? await runInProcess(args, env) : await runChainvisor(args, env, options);
  if (r.exitCode !== 0) throw new Error(`chainvisor ${args.join(' ')} exited ${r.exitCode}:\n${r.stderr}`);
  return r;
}

/** `chainvisor <args>` through the command's entry in this process: its exit code and output (one final newline taken off, as execa does). */
async function runInProcess(args: readonly string[], env: Env): Promise<CliResult> {
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
  return { exitCode, signal: undefined, stdout: (texts[0] as () => string)(), stderr: (texts[1] as () => string)() };
}
