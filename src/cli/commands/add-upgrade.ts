import { installBinary, layoutFor, planDir } from '../../home/layout/index.js';
import { ExitCode } from '../../shared/errors/index.js';
import { wholeNumber } from '../args.js';
import { defineCommand, writeLine } from '../command.js';
import { loadContextConfig } from '../settings.js';
import { reportSchedule } from './batch-report.js';

export const addUpgradeCommand = defineCommand({
  args: {
    positionals: [
      { name: 'upgrade-name', what: 'an upgrade name and a binary path', required: true },
      { name: 'path-to-binary', what: 'the binary path after the upgrade name', required: true },
    ],
    options: {
      'upgrade-height': {
        type: 'string',
        value: '<H>',
        parse: wholeNumber(1),
        help: [
          'also queue a manual upgrade at height H in data/upgrade-info.json.batch: the old',
          'binary commits block H, the new one continues at H+1 (no governance plan needed).',
          'Refused when the node (asked over gRPC, else its RPC) is already at H or past it,',
          'when a governance plan is at H, or when the queue has that name or that height.',
        ].join('\n'),
      },
      force: { type: 'boolean', help: 'replace a binary already installed for that upgrade\n(and a queued entry of that name)' },
    },
  },
  help: [
    'Copies the binary to $DAEMON_HOME/cosmovisor/upgrades/<name>/bin/$DAEMON_NAME (the name lower-cased',
    'unless COSMOVISOR_DISABLE_RECASE, then escaped), made executable, in one step.',
  ].join('\n'),
  async run(ctx, { values, positionals }) {
    const [name, source] = positionals as [string, string];
    const loaded = loadContextConfig(ctx);
    const { config } = loaded;
    const layout = layoutFor(config);
    const force = values.force;
    const height = values['upgrade-height'];
    if (height !== undefined) {
      // Loaded when used: the queue's checks bring the chain reader, which other commands never evaluate.
      const [{ scheduleUpgrades }, { nodeAddresses }] = await Promise.all([import('../schedule.js'), import('../node-addresses.js')]);
      const entries = [{ name, source, height, info: '' }];
      const result = await scheduleUpgrades({ config, layout, force, entries, addresses: await nodeAddresses(loaded, layout) });
      reportSchedule(ctx, layout, result);
      return ExitCode.ok;
    }
    const dir = planDir(layout, name);
    const dest = await installBinary(layout, dir, source, { force });
    writeLine(ctx.stdout, `installed ${source} for upgrade "${name}" as ${dest}`);
    return ExitCode.ok;
  },
});
