import { maxUpgradeInfoBytes } from '../../chain/index.js';
import { genesis, layoutFor, planRecordPath, readCurrentDir } from '../../home/layout/index.js';
import { ChainvisorError, ExitCode } from '../../shared/errors/index.js';
import { readBounded } from '../../shared/fsread/index.js';
import { defineCommand, writeLine } from '../command.js';
import { loadContextConfig } from '../settings.js';

export const showUpgradeInfoCommand = defineCommand({
  args: {},
  help: 'Prints current/upgrade-info.json: the plan that put the running binary in place.',
  async run(ctx) {
    const { config } = loadContextConfig(ctx);
    const layout = layoutFor(config);
    const dir = await readCurrentDir(layout);
    if (dir === genesis) {
      throw new ChainvisorError('CHAINVISOR_NO_UPGRADE_INFO', 'no upgrade has been applied yet: current points at genesis', {
        hint: `a plan the node is halting for is in ${layout.upgradeInfoFile}`,
      });
    }
    const record = planRecordPath(layout, dir);
    const read = await readBounded(record, maxUpgradeInfoBytes);
    if (read.status === 'missing') {
      throw new ChainvisorError('CHAINVISOR_NO_UPGRADE_INFO', `current points at ${dir}, which has no upgrade-info.json`, {
        hint: `current was pointed at ${dir} by hand rather than by an upgrade, so there is no plan to show; the binary in use is ${dir}/bin/${config.name}`,
      });
    }
    if (read.status === 'refused') {
      throw new ChainvisorError('CHAINVISOR_UPGRADE_INFO_INVALID', `cannot read ${record}: ${read.reason}`, {
        hint: `it must be a regular file of at most ${maxUpgradeInfoBytes} bytes; move aside whatever is there`,
        exitCode: ExitCode.config,
      });
    }
    writeLine(ctx.stdout, read.text.trim());
    return 0;
  },
});
