import { layoutFor } from '../../home/layout/index.js';
import { ExitCode } from '../../shared/errors/index.js';
import type { ManualEntry } from '../../watcher/manual/index.js';
import { defineCommand } from '../command.js';
import { loadContextConfig } from '../settings.js';
import { reportSchedule } from './batch-report.js';

export const addBatchUpgradeCommand = defineCommand({
  args: {
    options: {
      'upgrade-list': {
        type: 'string',
        value: '<name>:<path>:<height>,…',
        multiple: true,
        help: 'comma-separated name:path-to-binary:height items',
      },
      'upgrade-file': {
        type: 'string',
        value: '<file>',
        help: 'a headerless CSV file of name,path-to-binary,height lines, or a JSON array of\n{"name", "height", "info"} whose binaries are installed already',
      },
      force: { type: 'boolean', help: 'replace installed binaries and queued entries of the same names' },
    },
    exclusive: { options: ['upgrade-list', 'upgrade-file'], required: true },
  },
  help: [
    'Queues several manual upgrades at once in data/upgrade-info.json.batch (as cosmovisor v1.7). All entries are',
    "checked together first (binaries present, heights above the node's current height, no clash with the queue",
    'or a governance plan); nothing is installed or queued when any is refused.',
  ].join('\n'),
  async run(ctx, { values }) {
    // Loaded when used: the queue's checks bring the chain reader, which other commands never evaluate.
    const [{ parseUpgradeList, readUpgradeFile }, { scheduleUpgrades }, { nodeAddresses }] = await Promise.all([
      import('../../watcher/manual/index.js'),
      import('../schedule.js'),
      import('../node-addresses.js'),
    ]);
    const list = values['upgrade-list'];
    const file = values['upgrade-file'];
    const entries: ManualEntry[] = list !== undefined ? parseUpgradeList(list) : await readUpgradeFile(file as string);
    const loaded = loadContextConfig(ctx);
    const layout = layoutFor(loaded.config);
    const result = await scheduleUpgrades({ config: loaded.config, layout, force: values.force, entries, addresses: await nodeAddresses(loaded, layout) });
    reportSchedule(ctx, layout, result);
    return ExitCode.ok;
  },
});
