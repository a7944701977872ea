import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { UsageError } from '../../errors/index.js';
import { binaryPath, layoutFor, readCurrentDir } from '../../layout/index.js';
import { type Command, loadContextConfig, writeLine } from '../command.js';
import { version } from '../version.js';

export const versionCommand: Command = {
  name: 'version',
  summary: "print chainvisor's version and the running binary's",
  usage: 'chainvisor version [--output text|json]',
  help: "Prints chainvisor's version, then runs 'current/bin/$DAEMON_NAME version' and shows its answer.",
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { output: { type: 'string', short: 'o', default: 'text' } } });
    if (values.output !== 'text' && values.output !== 'json') throw new UsageError(`--output must be text or json, got ${JSON.stringify(values.output)}`);
    const json = values.output === 'json';
    if (!json) writeLine(ctx.stdout, `chainvisor version: ${version}`);
    const { config } = loadContextConfig(ctx);
    const layout = layoutFor(config);
    const binary = binaryPath(layout, await readCurrentDir(layout));
    const args = json ? ['version', '--output', 'json'] : ['version'];
    const result = await execa(binary, args, { reject: false, stdin: 'ignore', timeout: 30_000 });
    if (result.exitCode !== 0) {
      const why = result.exitCode === undefined ? ((result.cause as Error | undefined)?.message ?? result.message ?? 'unknown error') : `exit code ${result.exitCode}: ${result.stderr}`;
      ctx.stderr.write(`chainvisor: '${binary} ${args.join(' ')}' failed (${why.trim()})\n`);
      if (json) writeLine(ctx.stdout, JSON.stringify({ chainvisor_version: version, app_version: null }));
      return 1;
    }
    if (!json) {
      writeLine(ctx.stdout, `app version: ${result.stdout.trim()}`);
      return 0;
    }
    let app: unknown = result.stdout.trim();
    try {
      app = JSON.parse(result.stdout);
    } catch {
      // Not every binary prints JSON for --output json; keep its text.
    }
    writeLine(ctx.stdout, JSON.stringify({ chainvisor_version: version, app_version: app }));
    return 0;
  },
};
