import { execFile } from 'node:child_process';

import { binaryPath, layoutFor, readCurrentDir } from '../../home/layout/index.js';
import { defineCommand, loadContextConfig, writeLine } from '../command.js';
import { commit, version } from '../version.js';

export const versionCommand = defineCommand({
  name: 'version',
  summary: "print chainvisor's version and the running binary's",
  args: {
    options: {
      output: { type: 'string', short: 'o', choices: ['text', 'json'], help: "text (the default) or json, as cosmovisor's version --output" },
    },
  },
  help: [
    "Prints chainvisor's version, then runs 'current/bin/$DAEMON_NAME version' and shows its answer. The release",
    'executable also prints the git commit it was built from (chainvisor_commit in JSON; null when not known).',
  ].join('\n'),
  async run(ctx, { values }) {
    const json = values.output === 'json';
    if (!json) writeLine(ctx.stdout, `chainvisor version: ${version}`);
    const { config } = loadContextConfig(ctx);
    const layout = layoutFor(config);
    const binary = binaryPath(layout, await readCurrentDir(layout));
    const args = json ? ['version', '--output', 'json'] : ['version'];
    const result = await runBinary(binary, args);
    if (result.exitCode !== 0) {
      const why = result.exitCode === undefined ? result.failure : `exit code ${result.exitCode}: ${result.stderr}`;
      ctx.stderr.write(`chainvisor: '${binary} ${args.join(' ')}' failed (${why.trim()})\n`);
      if (json) writeLine(ctx.stdout, JSON.stringify({ chainvisor_version: version, chainvisor_commit: commit ?? null, app_version: null }));
      else writeCommit(ctx.stdout);
      return 1;
    }
    if (!json) {
      writeLine(ctx.stdout, `app version: ${result.stdout.trim()}`);
      writeCommit(ctx.stdout);
      return 0;
    }
    let app: unknown = result.stdout.trim();
    try {
      app = JSON.parse(result.stdout);
    } catch {
      // Not every binary prints JSON for --output json; keep its text.
    }
    writeLine(ctx.stdout, JSON.stringify({ chainvisor_version: version, chainvisor_commit: commit ?? null, app_version: app }));
    return 0;
  },
});

interface BinaryResult {
  /** undefined when the binary could not be started, was killed, or ran past the time limit (`failure` says which). */
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  failure: string;
}

/**
 * Runs the node binary with stdin closed, for 30 s at most. node:child_process rather than execa: this
 * command must start fast, and execa would bring the executable's lazily loaded part (see
 * scripts/release-bundle.ts) for one call.
 */
function runBinary(binary: string, args: string[]): Promise<BinaryResult> {
  return new Promise((resolve) => {
    const child = execFile(binary, args, { encoding: 'utf8', timeout: 30_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) return resolve({ exitCode: 0, stdout, stderr, failure: '' });
      if (typeof error.code === 'number' && !error.killed) return resolve({ exitCode: error.code, stdout, stderr, failure: '' });
      const failure = error.killed
        ? `killed by ${error.signal ?? 'a signal'} after the 30 s limit`
        : error.signal
          ? `killed by ${error.signal}`
          : error.message;
      resolve({ exitCode: undefined, stdout, stderr, failure });
    });
    child.stdin?.end();
  });
}

/** Last, so that the first two lines stay cosmovisor's (`… version: …`, `app version: …`) for scripts that read them. */
function writeCommit(stdout: Parameters<typeof writeLine>[0]): void {
  if (commit !== undefined) writeLine(stdout, `chainvisor commit: ${commit}`);
}
