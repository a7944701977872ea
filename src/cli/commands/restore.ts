import type { RestorePlan, RestoreRecord, SignSide } from '../../home/backup/index.js';
import { layoutFor, requireHome } from '../../home/layout/index.js';
import { ChainvisorError } from '../../shared/errors/index.js';
import { type CommandContext, defineCommand, writeLine } from '../command.js';
import { loadContextConfig, logOptions } from '../settings.js';
import { version } from '../version.js';

export const restoreCommand = defineCommand({
  args: {
    options: {
      backup: { type: 'string', value: '<folder>', help: 'the backup to put back (default: the newest chainvisor recorded)' },
      'dry-run': { type: 'boolean', help: 'print the plan and change nothing' },
      yes: { type: 'boolean', short: 'y', help: 'do not ask (for scripts; without a terminal, restore needs it)' },
      'keep-binary': { type: 'boolean', help: 'leave `current` as it is' },
      output: { type: 'string', short: 'o', choices: ['json', 'text'], help: 'json: the plan and what was done as JSON; text (the default): for people' },
    },
  },
  help: [
    'Puts the newest backup chainvisor recorded (or --backup <folder>) back as $DAEMON_HOME/data. The backup is',
    'copied (clones where the filesystem allows), never moved: it stays for another try. The current data/ is',
    'renamed data.replaced-<time> beside it; nothing is deleted. The validator signing state',
    '(priv_validator_state.json) is never moved back: the one further ahead by (height, round, step) is kept.',
    "`current` goes back to the binary of the backup's time (--keep-binary leaves it). Refused while `run`",
    'holds the home (82). Asks on a terminal; --yes for scripts. --dry-run prints the plan and changes nothing.',
    'Exit 0 restored, 79 nothing to restore (or a backup, a record or a journal it cannot use), 81 not enough space, 84 a signing',
    'state that cannot be read.',
  ].join('\n'),
  async run(ctx, { values }) {
    const args = { backup: values.backup, dryRun: values['dry-run'], yes: values.yes, keepBinary: values['keep-binary'], output: values.output ?? 'text' };
    const { config } = loadContextConfig(ctx);
    const layout = layoutFor(config);
    await requireHome(layout);
    const [backup, { acquireHomeLock, restoreSigning }, { createLogger }] = await Promise.all([
      import('../../home/backup/index.js'),
      import('../../guard/index.js'),
      import('../../shared/log.js'),
    ]);
    const logger = createLogger(logOptions(config));
    // No node may run on the data while it is replaced: `run` holds this lock for as long as it lives.
    const lock = await acquireHomeLock({ layout, version, logger });
    // The signing safety is the double-sign guard's: the restore is handed its side.
    const signing = restoreSigning(layout);
    try {
      await backup.resumeInterruptedRestore({ layout, logger, signing });
      const plan = await backup.planRestore({
        layout,
        backupDir: config.dataBackupDir,
        keepBinary: args.keepBinary,
        signing,
        ...(args.backup ? { backup: args.backup } : {}),
      });
      if (args.output === 'text') writeLine(ctx.stdout, renderPlan(plan));
      if (args.dryRun) {
        if (args.output === 'json') writeLine(ctx.stdout, JSON.stringify({ dryRun: true, plan: planJson(plan), restored: null }, null, 2));
        return 0;
      }
      if (!args.yes) await confirm(ctx, plan);
      const record = await backup.restoreData({ plan, layout, logger, signing });
      await announce(config, logger, record);
      if (args.output === 'json') writeLine(ctx.stdout, JSON.stringify({ dryRun: false, plan: planJson(plan), restored: record }, null, 2));
      else writeLine(ctx.stdout, renderDone(record));
      return 0;
    } finally {
      await lock.release();
    }
  },
});

async function confirm(ctx: CommandContext, plan: RestorePlan): Promise<void> {
  if (!process.stdin.isTTY) {
    throw new ChainvisorError(
      'CHAINVISOR_RESTORE_UNCONFIRMED',
      `restore of ${plan.backup} not confirmed: no terminal to ask on and no --yes; nothing was changed`,
    );
  }
  // Loaded here, not at the top: every command's start loads this file, and readline costs about 0.4 ms.
  const { createInterface } = process.getBuiltinModule('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: ctx.stderr });
  try {
    const answer = await rl.question(`Replace ${plan.dataDir} with a copy of ${plan.backup}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim()))
      throw new ChainvisorError('CHAINVISOR_RESTORE_UNCONFIRMED', `restore of ${plan.backup} not confirmed; nothing was changed`);
  } finally {
    rl.close();
  }
}

/** The `data-restored` event: logged, and to the webhooks when CHAINVISOR_WEBHOOK_URL is set (`run` is not running: this command sends it). */
async function announce(config: { webhookUrl: string }, logger: import('../../shared/log.js').Logger, record: RestoreRecord): Promise<void> {
  const text = `data restored from ${record.backup}; the replaced data is in ${record.replaced}; signing state kept: ${record.signing.kept}`;
  const [{ createEventBus }, { logEvents }] = await Promise.all([import('../../shared/events/index.js'), import('../../shared/event-log.js')]);
  const bus = createEventBus();
  logEvents(bus, logger);
  const webhooks =
    config.webhookUrl === ''
      ? undefined
      : await import('../../observe/index.js').then(({ parseWebhookTargets, startWebhooks }) =>
          startWebhooks({ targets: parseWebhookTargets(config.webhookUrl), bus, logger }),
        );
  bus.emit('data-restored', { text, data: { ...record } });
  await webhooks?.close(5000);
}

/** As guard's describePoint, which this module does not load at start-up (every command's start loads this file). */
function side(s: SignSide): string {
  return s === 'missing' ? 'none' : `height ${s.height} round ${s.round} step ${s.step}`;
}

function renderPlan(plan: RestorePlan): string {
  const made = plan.made ? ` (made for upgrade ${plan.made.upgrade} at height ${plan.made.height}, ${plan.made.time}, ${plan.made.mode})` : '';
  const s = plan.signing;
  const signing =
    s.rel === undefined
      ? 'kept outside data/ (config.toml priv_validator_state_file): not touched'
      : s.kept === 'none'
        ? 'none in either (not a validator)'
        : `keep the ${s.kept === 'replaced' ? "replaced data's" : "backup's"}: replaced ${side(s.replaced)}, backup ${side(s.backup)}`;
  const c = plan.current;
  const current =
    c.source === 'keep-binary'
      ? `${c.from} (--keep-binary)`
      : c.source === 'unknown'
        ? `${c.from} (left alone: the backup has no record of its binary)`
        : !c.installed
          ? `${c.from} (left alone: ${c.to}, the binary of the backup's time, is not installed)`
          : c.to === c.from
            ? `${c.to} (unchanged)`
            : `${c.from} → ${c.to}`;
  const lines = [
    'restore plan:',
    `  backup         ${plan.backup}${made}`,
    `  data           ${plan.dataDir} → set aside as ${plan.replaced}`,
    `  copy           clones where the filesystem allows, copies otherwise (via ${plan.work}); the backup stays`,
    `  signing state  ${signing}`,
    `  current        ${current}`,
  ];
  if (s.rememberedAhead) {
    lines.push(
      `  WARNING        the sign guard remembers ${side(s.rememberedAhead)} on ${s.chainId}, ahead of both files: 'run' will refuse to start the node (84) until that state file is back`,
    );
  }
  return lines.join('\n');
}

function renderDone(record: RestoreRecord): string {
  const how = record.mode === 'reflink' ? 'clones' : 'copies';
  const kept =
    record.signing.kept === 'none'
      ? 'no signing state in either'
      : `kept the ${record.signing.kept === 'replaced' ? 'replaced data' : 'backup'}'s priv_validator_state.json (replaced: height ${record.signing.replacedHeight ?? 'none'}, backup: height ${record.signing.backupHeight ?? 'none'})`;
  return [
    `restored ${record.backup} as ${record.dataDir} in ${record.durationSeconds.toFixed(1)} s (${record.files} files as ${how})`,
    `the data it replaced is in ${record.replaced}`,
    `signing state: ${kept}`,
    `current: ${record.current.to}`,
  ].join('\n');
}

function planJson(plan: RestorePlan): Record<string, unknown> {
  const point = (s: SignSide) => (s === 'missing' ? null : { height: s.height.toString(), round: s.round, step: s.step });
  return {
    backup: plan.backup,
    made: plan.made ?? null,
    dataDir: plan.dataDir,
    work: plan.work,
    replaced: plan.replaced,
    signing: {
      file: plan.signing.rel ?? null,
      kept: plan.signing.kept,
      replaced: point(plan.signing.replaced),
      backup: point(plan.signing.backup),
      chainId: plan.signing.chainId,
      rememberedAhead: plan.signing.rememberedAhead ? point(plan.signing.rememberedAhead) : null,
    },
    current: plan.current,
  };
}
