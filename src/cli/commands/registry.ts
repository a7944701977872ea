/**
 * Every command, in the order `chainvisor help` lists them: its name and summary here, its module loaded
 * only when the command runs or its help is asked for, so that `--version` and `help` load none of them.
 */
import type { CommandEntry } from '../command.js';

export const commands: readonly CommandEntry[] = [
  {
    name: 'init',
    summary: 'create the cosmovisor folder layout with a genesis binary, and cosmovisor/config.toml',
    load: async () => (await import('./init.js')).initCommand,
  },
  { name: 'run', summary: 'run the node under supervision and switch binaries at upgrades', load: async () => (await import('./run.js')).runCommand },
  {
    name: 'add-upgrade',
    summary: 'install the binary for a named upgrade ahead of time (optionally at an exact height, without governance)',
    load: async () => (await import('./add-upgrade.js')).addUpgradeCommand,
  },
  {
    name: 'add-batch-upgrade',
    summary: 'install several binaries and queue them as manual upgrades at exact heights',
    load: async () => (await import('./add-batch-upgrade.js')).addBatchUpgradeCommand,
  },
  {
    name: 'show-upgrade-info',
    summary: 'print the upgrade-info.json of the running binary',
    load: async () => (await import('./show-upgrade-info.js')).showUpgradeInfoCommand,
  },
  { name: 'version', summary: "print chainvisor's version and the running binary's", load: async () => (await import('./version.js')).versionCommand },
  { name: 'config', summary: 'print the resolved settings and the paths derived from them', load: async () => (await import('./config.js')).configCommand },
  {
    name: 'check-plan',
    summary: "validate an upgrade plan's Info: download, verify and inspect its binaries",
    load: async () => (await import('./check-plan.js')).checkPlanCommand,
  },
  {
    name: 'status',
    summary: 'show the node, current binary, pending and queued upgrades, staged binaries and backups',
    load: async () => (await import('./status.js')).statusCommand,
  },
  {
    name: 'prepare-upgrade',
    summary: 'stage the binary of the upgrade scheduled on chain now (download, verify, install)',
    load: async () => (await import('./prepare-upgrade.js')).prepareUpgradeCommand,
  },
  {
    name: 'rehearse',
    summary: "rehearse an upgrade on a scratch copy of this node's state, while the node keeps running",
    load: async () => (await import('./rehearse.js')).rehearseCommand,
  },
  { name: 'notify', summary: 'send a test message to every configured alert channel', load: async () => (await import('./notify.js')).notifyCommand },
  {
    name: 'restore',
    summary: 'put a backup made by chainvisor back as data/, keeping the newest signing state',
    load: async () => (await import('./restore.js')).restoreCommand,
  },
];
