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
      'drop-queue': { type: 'boolean', help: 'the restored data has no manual-upgrade queue (default: the current one is kept)' },
      output: { type: 'string', short: 'o', choices: ['json', 'text'], help: 'json: the plan and what was done as JSON; text (the default): for people' },
    },
  },
  help: [
    'Puts the newest backup chainvisor recorded (or --backup <folder>) back as $DAEMON_HOME/data. The backup is',
    'copied (clones where the filesystem allows), never moved: it stays for another try. The current data/ is',
    'renamed data.replaced-<time> beside it; nothing is deleted. The validator signing state',
    '(priv_validator_state.json) is never moved back: the one further ahead by (height, round, step) is kept.',
    "`current` goes back to the binary of the backup's time (--keep-binary leaves it). The manual-upgrade queue",
    "(data/upgrade-info.json.batch) of today is kept in the restored data, never the backup's (--drop-queue: none).",
    'Refused while `run` holds the home (82). Asks on a terminal; --yes for scripts. --dry-run prints the plan and',
    'changes nothing, even while `run` is active.',
    'Exit 0 restored, 79 nothing to restore (or a backup, a record or a journal it cannot use), 81 not enough space, 84 a signing',
    'state that cannot be read.',
  ].join('\n'),
  async run(ctx, { values }) {
    const args = {
      backup: values.backup,
      dryRun: values['dry-run'],
      yes: values.yes,
      keepBinary: values['keep-binary'],
      dropQueue: values['drop-queue'] === true,
      output: values.output ?? 'text',
    };
    const { config } = loadContextConfig(ctx);
    const layout = layoutFor(config);
    await requireHome(layout);
    const [backup, { acquireHomeLock, restoreSigning }, { createLogger }] = await Promise.all([
      import('../../home/backup/index.js'),
      import('../../guard/index.js'),
      import('../../shared/log.js'),
    ]);
    const logger = createLogger(logOptions(config));
    // The signing safety is the double-sign guard's: the restore is handed its side.
    const signing = restoreSigning(layout);
    const planOf = () =>
      backup.planRestore({
        layout,
        backupDir: config.dataBackupDir,
        keepBinary: args.keepBinary,
        dropQueue: args.dropQueue,
        signing,
        ...(args.backup ? { backup: args.backup } : {}),
      });
    if (args.dryRun) {
      // Read only, so allowed while `run` is active: no lock taken, an interrupted restore neither finished nor undone.
      const pending = await backup.pendingRestore({ layout, signing });
      const plan = await planOf();
      if (args.output === 'json')
        writeLine(ctx.stdout, JSON.stringify({ dryRun: true, plan: planJson(plan), pending: pending ?? null, restored: null }, null, 2));
      else writeLine(ctx.stdout, [renderPlan(plan, backup.describeQueue(plan.queue)), ...dryRunNotes(pending)].join('\n'));
      return 0;
    }
    // No node may run on the data while it is replaced: `run` holds this lock for as long as it lives.
    const lock = await acquireHomeLock({ layout, version, logger });
    try {
      await backup.resumeInterruptedRestore({ layout, logger, signing });
      const plan = await planOf();
      if (args.output === 'text') writeLine(ctx.stdout, renderPlan(plan, backup.describeQueue(plan.queue)));
      if (!args.yes) await confirm(ctx, plan);
      const record = await backup.restoreData({ plan, layout, logger, signing });
      await announce(config, logger, record);
      if (args.output === 'json') writeLine(ctx.stdout, JSON.stringify({ dryRun: false, plan: planJson(plan), restored: record }, null, 2));
      else writeLine(ctx.stdout, renderDone(record, plan));
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
    const queue = plan.queue.kept
      ? ', keeping the manual-upgrade queue'
      : plan.queue.dropped && plan.queue.current.status !== 'missing'
        ? ', dropping the manual-upgrade queue'
        : '';
    const answer = await rl.question(`Replace ${plan.dataDir} with a copy of ${plan.backup}${queue}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim()))
      throw new ChainvisorError('CHAINVISOR_RESTORE_UNCONFIRMED', `restore of ${plan.backup} not confirmed; nothing was changed`);
  } finally {
    rl.close();
  }
}

type Pending = Awaited<ReturnType<typeof import('../../home/backup/index.js').pendingRestore>>;

/** What a dry run adds under its plan: nothing changed, what the restore itself needs, a restore still pending. */
function dryRunNotes(pending: Pending): string[] {
  const notes = [
    "dry run: nothing was changed. The restore itself needs the node and 'chainvisor run' stopped (while run holds the home it refuses, exit 82): stop them, then run chainvisor restore without --dry-run",
  ];
  if (pending?.phase === 'copying') notes.push(`an interrupted restore of ${pending.backup} is pending: the restore first undoes it (removes ${pending.work})`);
  if (pending?.phase === 'swapping') {
    notes.push(
      `an interrupted restore of ${pending.backup} is pending: the restore (or run) first finishes it (${pending.work} becomes the data, the data now is set aside as ${pending.replaced}); this plan is of the data as it is now`,
    );
  }
  return notes;
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

function renderPlan(plan: RestorePlan, queue: string): string {
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
    `  upgrade queue  ${queue}`,
  ];
  if (s.rememberedAhead) {
    lines.push(
      `  WARNING        the sign guard remembers ${side(s.rememberedAhead)} on ${s.chainId}, ahead of both files: 'run' will refuse to start the node (84) until that state file is back`,
    );
  }
  return lines.join('\n');
}

function renderDone(record: RestoreRecord, plan: RestorePlan): string {
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
    `upgrade queue: ${plan.queue.kept ? 'kept' : plan.queue.dropped && plan.queue.current.status !== 'missing' ? 'dropped (--drop-queue)' : 'none'}`,
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
    queue: plan.queue,
  };
}
