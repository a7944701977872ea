import { installBinary, layoutFor, planDir } from '../../home/layout/index.js';
import { ExitCode, UsageError } from '../../shared/errors/index.js';
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
      yes: { type: 'boolean', help: 'with --upgrade-height: let a running `run` restart a validator now (as --restart-now)' },
      'restart-now': {
        type: 'boolean',
        help: [
          'with --upgrade-height: let a running `run` restart the node now to pass it the new',
          '--halt-height; needed when the node signs with a local key (config/priv_validator_key.json),',
          'otherwise the upgrade is queued without a restart (see docs/manual-upgrades.md)',
        ].join('\n'),
      },
    },
  },
  help: [
    'Copies the binary to $DAEMON_HOME/cosmovisor/upgrades/<name>/bin/$DAEMON_NAME (the name lower-cased',
    'unless COSMOVISOR_DISABLE_RECASE, then escaped), made executable, in one step. The same binary again is',
    'a no-op (exit 0); a different one is refused (exit 78) unless --force.',
    '',
    "With --upgrade-height, while 'chainvisor run' is active and H becomes the first queued height, run restarts",
    'the node to pass it --halt-height=H, and the command says so. When the node signs with a local key, that',
    'restart needs --yes or --restart-now; without either the upgrade is queued and the command explains what',
    'happens until the node restarts.',
  ].join('\n'),
  async run(ctx, { values, positionals }) {
    const [name, source] = positionals as [string, string];
    const loaded = loadContextConfig(ctx);
    const { config } = loaded;
    const layout = layoutFor(config);
    const force = values.force;
    const height = values['upgrade-height'];
    const goAhead = values.yes || values['restart-now'];
    if (goAhead && height === undefined) throw new UsageError('--yes and --restart-now go with --upgrade-height: they allow the restart of the node it causes');
    if (height !== undefined) {
      // Loaded when used: the queue's checks bring the chain reader, which other commands never evaluate.
      const [{ scheduleUpgrades }, { nodeAddresses }, { restartLines, restartOutlook, restartsFor }, { readQueued }] = await Promise.all([
        import('../schedule.js'),
        import('../node-addresses.js'),
        import('../restart-outlook.js'),
        import('../../watcher/manual/index.js'),
      ]);
      const outlook = await restartOutlook({ layout, backupDir: config.dataBackupDir, queued: await readQueued(layout), replaced: force ? name : '' });
      // A validator is not restarted without the operator's word: the entry waits for the node's next start.
      const held = restartsFor(outlook, height) && outlook.localKey !== undefined && !goAhead;
      const entries = [{ name, source, height, info: '', ...(held ? { waitForRestart: true as const } : {}) }];
      const result = await scheduleUpgrades({ config, layout, force, entries, addresses: await nodeAddresses(loaded, layout) });
      reportSchedule(ctx, layout, result);
      for (const line of restartLines(outlook, { name, source, height, held })) writeLine(ctx.stdout, line);
      return ExitCode.ok;
    }
    const dir = planDir(layout, name);
    const { dest, unchanged } = await installBinary(layout, dir, source, { force, upgrade: name });
    // The operator's binary now: no record of chainvisor's staging (another Info) may set it aside at the halt.
    if (!unchanged) await (await import('../../download/staging/index.js')).updateStagedRecord(layout, dir, undefined);
    writeLine(
      ctx.stdout,
      unchanged
        ? `upgrade "${name}": the same binary is already installed as ${dest}; nothing changed`
        : `installed ${source} for upgrade "${name}" as ${dest}`,
    );
    return ExitCode.ok;
  },
});
