import { parseArgs } from 'node:util';

import { layoutFor } from '../../home/layout/index.js';
import { ExitCode, UsageError } from '../../shared/errors/index.js';
import type { ManualEntry } from '../../supervisor/manual/index.js';
import { type Command, loadContextConfig } from '../command.js';
import { reportSchedule } from './batch-report.js';

export const addBatchUpgradeCommand: Command = {
  name: 'add-batch-upgrade',
  summary: 'install several binaries and queue them as manual upgrades at exact heights',
  usage: 'chainvisor add-batch-upgrade (--upgrade-list <name>:<path>:<height>,… | --upgrade-file <file>) [--force]',
  help: [
    'Queues several manual upgrades at once in data/upgrade-info.json.batch (as cosmovisor v1.7). All entries are',
    "checked together first (binaries present, heights above the node's current height, no clash with the queue",
    'or a governance plan); nothing is installed or queued when any is refused.',
    '  --upgrade-list L   comma-separated name:path-to-binary:height items',
    '  --upgrade-file F   a headerless CSV file of name,path-to-binary,height lines, or a JSON array of',
    '                     {"name", "height", "info"} whose binaries are installed already',
    '  --force            replace installed binaries and queued entries of the same names',
  ].join('\n'),
  async run(ctx) {
    // Loaded when used: the queue's checks bring the chain reader, which other commands never evaluate.
    const [{ parseUpgradeList, readUpgradeFile, scheduleUpgrades }, { addressesFor }] = await Promise.all([
      import('../../supervisor/manual/index.js'),
      import('../../watcher/chain/index.js'),
    ]);
    const { values, positionals } = parseArgs({
      args: ctx.args,
      options: { force: { type: 'boolean' }, 'upgrade-list': { type: 'string', multiple: true }, 'upgrade-file': { type: 'string' } },
      allowPositionals: true,
    });
    if (positionals.length > 0)
      throw new UsageError(`add-batch-upgrade takes no arguments, got ${JSON.stringify(positionals[0])}`, 'use --upgrade-list or --upgrade-file');
    const list = values['upgrade-list'];
    const file = values['upgrade-file'];
    if ((list === undefined) === (file === undefined)) {
      throw new UsageError(
        'add-batch-upgrade needs exactly one of --upgrade-list and --upgrade-file',
        'chainvisor add-batch-upgrade --upgrade-list v2:/opt/v2/simd:1000,v3:/opt/v3/simd:2000',
      );
    }
    const entries: ManualEntry[] = list !== undefined ? parseUpgradeList(list) : await readUpgradeFile(file as string);
    const loaded = loadContextConfig(ctx);
    const layout = layoutFor(loaded.config);
    const result = await scheduleUpgrades({ config: loaded.config, layout, force: values.force ?? false, entries, addresses: addressesFor(loaded) });
    reportSchedule(ctx, layout, result);
    return ExitCode.ok;
  },
};
