import { parseArgs } from 'node:util';

import { installBinary, layoutFor, planDir } from '../../home/layout/index.js';
import { ExitCode, UsageError } from '../../shared/errors/index.js';
import { type Command, loadContextConfig, writeLine } from '../command.js';
import { reportSchedule } from './batch-report.js';

export const addUpgradeCommand: Command = {
  name: 'add-upgrade',
  summary: 'install the binary for a named upgrade ahead of time (optionally at an exact height, without governance)',
  usage: 'chainvisor add-upgrade <upgrade-name> <path-to-binary> [--upgrade-height <H>] [--force]',
  help: [
    'Copies the binary to $DAEMON_HOME/cosmovisor/upgrades/<name>/bin/$DAEMON_NAME (the name lower-cased',
    'unless COSMOVISOR_DISABLE_RECASE, then escaped), made executable, in one step.',
    '  --upgrade-height H   also queue a manual upgrade at height H in data/upgrade-info.json.batch: the old',
    '                       binary commits block H, the new one continues at H+1 (no governance plan needed).',
    '                       Refused when the node (asked over gRPC, else its RPC) is already at H or past it,',
    '                       when a governance plan is at H, or when the queue has that name or that height.',
    '  --force              replace a binary already installed for that upgrade (and a queued entry of that name)',
  ].join('\n'),
  async run(ctx) {
    const { values, positionals } = parseArgs({
      args: ctx.args,
      options: { force: { type: 'boolean' }, 'upgrade-height': { type: 'string' } },
      allowPositionals: true,
    });
    const [name, source, extra] = positionals;
    if (name === undefined || source === undefined) {
      throw new UsageError('add-upgrade needs an upgrade name and a binary path', 'chainvisor add-upgrade v2 /path/to/new/simd');
    }
    if (extra !== undefined) throw new UsageError(`add-upgrade takes two arguments, got also ${JSON.stringify(extra)}`);
    const loaded = loadContextConfig(ctx);
    const { config } = loaded;
    const layout = layoutFor(config);
    const force = values.force ?? false;
    const heightText = values['upgrade-height'];
    if (heightText !== undefined) {
      if (!/^\d+$/.test(heightText) || !Number.isSafeInteger(Number(heightText)) || Number(heightText) <= 0) {
        throw new UsageError(
          `--upgrade-height must be a whole number above 0, got ${JSON.stringify(heightText)}`,
          'chainvisor add-upgrade v2 /path/to/simd --upgrade-height 1200',
        );
      }
      // Loaded when used: the queue's checks bring the chain reader, which other commands never evaluate.
      const [{ scheduleUpgrades }, { addressesFor }] = await Promise.all([import('../../supervisor/manual/index.js'), import('../../watcher/chain/index.js')]);
      const entries = [{ name, source, height: Number(heightText), info: '' }];
      const result = await scheduleUpgrades({ config, layout, force, entries, addresses: addressesFor(loaded) });
      reportSchedule(ctx, layout, result);
      return ExitCode.ok;
    }
    const dir = planDir(layout, name);
    const dest = await installBinary(layout, dir, source, { force });
    writeLine(ctx.stdout, `installed ${source} for upgrade "${name}" as ${dest}`);
    return ExitCode.ok;
  },
};
