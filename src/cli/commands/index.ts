/** Every command, in the order `chainvisor help` lists them. */
import type { Command } from '../command.js';
import { addUpgradeCommand } from './add-upgrade.js';
import { checkPlanCommand } from './check-plan.js';
import { configCommand } from './config.js';
import { initCommand } from './init.js';
import { prepareUpgradeCommand } from './prepare-upgrade.js';
import { runCommand } from './run.js';
import { showUpgradeInfoCommand } from './show-upgrade-info.js';
import { versionCommand } from './version.js';

export const commands: Command[] = [
  initCommand,
  runCommand,
  addUpgradeCommand,
  showUpgradeInfoCommand,
  versionCommand,
  configCommand,
  checkPlanCommand,
  prepareUpgradeCommand,
];
