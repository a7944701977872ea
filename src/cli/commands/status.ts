import { layoutFor } from '../../home/layout/index.js';
import { renderStatus, statusOfHome } from '../../observe/status/index.js';
import { UsageError } from '../../shared/errors/index.js';
import { type Command, loadContextConfig, writeLine } from '../command.js';
import { version } from '../version.js';

export const statusCommand: Command = {
  name: 'status',
  summary: 'show the node, current binary, pending and queued upgrades, staged binaries and backups',
  usage: 'chainvisor status [--output json]',
  help: [
    "With 'chainvisor run' active for this home, shows its live state (the node's pid and state, the last upgrade,",
    'the chain height) from the status file it keeps in cosmovisor/.chainvisor/status.json; without it, what the',
    'home says. --output json prints the same document as GET /status on the HTTP endpoint.',
  ].join('\n'),
  async run(ctx) {
    const output = parseOutput(ctx.args);
    const { config } = loadContextConfig(ctx);
    const doc = await statusOfHome({ layout: layoutFor(config), backupDir: config.dataBackupDir, version });
    writeLine(ctx.stdout, output === 'json' ? JSON.stringify(doc, null, 2) : renderStatus(doc));
    return 0;
  },
};

function parseOutput(args: string[]): 'json' | 'text' {
  let output: 'json' | 'text' = 'text';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = arg === '--output' || arg === '-o' ? args[++i] : arg.startsWith('--output=') ? arg.slice('--output='.length) : undefined;
    if (value === undefined) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}; usage: chainvisor status [--output json]`);
    if (value !== 'json' && value !== 'text') throw new UsageError(`--output must be json or text, not ${JSON.stringify(value)}`);
    output = value;
  }
  return output;
}
