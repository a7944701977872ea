import { binaryPath, layoutFor, readCurrentDir } from '../../home/layout/index.js';
import { parseJsonValue } from '../../shared/json.js';
import { runProgram } from '../../shared/proc/index.js';
import { defineCommand, writeLine } from '../command.js';
import { loadContextConfig } from '../settings.js';
import { commit, version } from '../version.js';

export const versionCommand = defineCommand({
  args: {
    options: {
      output: { type: 'string', short: 'o', choices: ['text', 'json'], help: "text (the default) or json, as cosmovisor's version --output" },
    },
  },
  help: [
    "Prints chainvisor's version, then runs 'current/bin/$DAEMON_NAME version' and shows its answer (a node that does",
    'not answer within 5 s is killed, and said so: exit 1). The release executable also prints the git commit it was',
    'built from (chainvisor_commit in JSON; null when not known).',
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
    // Not every binary prints JSON for --output json; then its text is kept.
    const parsed = parseJsonValue(result.stdout, { maxBytes: 16 * 1024 * 1024 });
    const app = parsed.ok ? parsed.value : result.stdout.trim();
    writeLine(ctx.stdout, JSON.stringify({ chainvisor_version: version, chainvisor_commit: commit ?? null, app_version: app }));
    return 0;
  },
});

interface BinaryResult {
  /** undefined when the binary could not be started, was killed, or did not answer in time (`failure` says which). */
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  failure: string;
}

/**
 * How long the node has to print its version. A node's `version` answers in well under a second; one
 * that hangs (it waits on a lock, a network, its stdin) must not hang chainvisor with it.
 */
export const versionTimeoutMs = 5000;

/**
 * Runs the node binary with stdin closed, for `versionTimeoutMs` at most (src/shared/proc): at the limit
 * its whole process group is killed (SIGKILL: a node that ignores SIGTERM is what hangs), and with it
 * whatever it started, so the answer comes at the limit whatever the node does.
 */
async function runBinary(binary: string, args: string[]): Promise<BinaryResult> {
  const result = await runProgram(binary, args, { timeoutMs: versionTimeoutMs, killAfterMs: 0, maxOutput: 16 * 1024 * 1024 });
  const { stdout, stderr } = result;
  if (result.timedOut)
    return { exitCode: undefined, stdout: '', stderr: '', failure: `the node did not answer within ${versionTimeoutMs / 1000} s; it was killed` };
  if (result.exitCode !== undefined) return { exitCode: result.exitCode, stdout, stderr, failure: '' };
  return { exitCode: undefined, stdout, stderr, failure: result.signal ? `killed by ${result.signal}` : (result.cause?.message ?? 'it could not be started') };
}

/** Last, so that the first two lines stay cosmovisor's (`… version: …`, `app version: …`) for scripts that read them. */
function writeCommit(stdout: Parameters<typeof writeLine>[0]): void {
  if (commit !== undefined) writeLine(stdout, `chainvisor commit: ${commit}`);
}
