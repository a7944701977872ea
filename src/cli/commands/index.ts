/** Every command, in the order `chainvisor help` lists them. */
import type { Command } from '../command.js';
import { addBatchUpgradeCommand } from './add-batch-upgrade.js';
import { addUpgradeCommand } from './add-upgrade.js';
import { checkPlanCommand } from './check-plan.js';
import { configCommand } from './config.js';
import { initCommand } from './init.js';
import { notifyCommand } from './notify.js';
import { prepareUpgradeCommand } from './prepare-upgrade.js';
import { rehearseCommand } from './rehearse.js';
import { restoreCommand } from './restore.js';
import { runCommand } from './run.js';
import { showUpgradeInfoCommand } from './show-upgrade-info.js';
import { statusCommand } from './status.js';
import { versionCommand } from './version.js';

export const commands: Command[] = [
  initCommand,
  runCommand,
  addUpgradeCommand,
  addBatchUpgradeCommand,
  showUpgradeInfoCommand,
  versionCommand,
  configCommand,
  checkPlanCommand,
  statusCommand,
  prepareUpgradeCommand,
  rehearseCommand,
  notifyCommand,
  restoreCommand,
];
