import { parseArgs } from 'node:util';
import { ExitCode, UsageError } from '../../errors/index.js';
import { installBinary, layoutFor, upgradeBinaryDir, upgradeDirName } from '../../layout/index.js';
import { type Command, loadContextConfig, writeLine } from '../command.js';

export const addUpgradeCommand: Command = {
  name: 'add-upgrade',
  summary: 'install the binary for a named upgrade ahead of time',
  usage: 'chainvisor add-upgrade <upgrade-name> <path-to-binary> [--force]',
  help: [
    'Copies the binary to $DAEMON_HOME/cosmovisor/upgrades/<name>/bin/$DAEMON_NAME (the name lower-cased',
    'unless COSMOVISOR_DISABLE_RECASE, then escaped), made executable, in one step.',
    '  --force   replace a binary already installed for that upgrade',
  ].join('\n'),
  async run(ctx) {
    const { values, positionals } = parseArgs({ args: ctx.args, options: { force: { type: 'boolean' } }, allowPositionals: true });
    const [name, source, extra] = positionals;
    if (name === undefined || source === undefined) {
      throw new UsageError('add-upgrade needs an upgrade name and a binary path', 'chainvisor add-upgrade v2 /path/to/new/simd');
    }
    if (extra !== undefined) throw new UsageError(`add-upgrade takes two arguments, got also ${JSON.stringify(extra)}`);
    const { config } = loadContextConfig(ctx);
    const layout = layoutFor(config);
    const dir = upgradeBinaryDir(upgradeDirName(name, { recase: !config.disableRecase }));
    const dest = await installBinary(layout, dir, source, { force: values.force ?? false });
    writeLine(ctx.stdout, `installed ${source} for upgrade "${name}" as ${dest}`);
    return ExitCode.ok;
  },
};
