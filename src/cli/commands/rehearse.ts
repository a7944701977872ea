/**
 * `chainvisor rehearse`: the upgrade run on a scratch copy of this node's state (src/rehearsal/, docs/rehearsal.md).
 * Its arguments are parsed by args.ts (64 when wrong); it picks the upgrade, stops cleanly on SIGTERM/SIGINT, prints the
 * report (text or JSON) and records it; exit 0 passed, 83 failed, 79 could not rehearse.
 */
import { parseDuration } from '../../config/index.js';
import { layoutFor } from '../../home/layout/index.js';
import { ChainvisorError, ExitCode } from '../../shared/errors/index.js';
import { wholeNumber } from '../args.js';
import { defineCommand, writeLine } from '../command.js';
import { loadContextConfig, logOptions } from '../settings.js';

export const rehearseCommand = defineCommand({
  args: {
    positionals: [{ name: 'upgrade-name', what: 'an upgrade name' }],
    options: {
      blocks: { type: 'string', value: 'N', parse: wholeNumber(1), help: 'blocks of the new binary to wait for past the upgrade height (default 3)' },
      timeout: {
        type: 'string',
        value: '<duration>',
        parse: (text: string) => {
          const d = parseDuration(text);
          return d.ok && d.value > 0 ? { value: d.value } : { reason: 'must be a duration such as 10m or 90s' };
        },
        help: 'bounds the run after the copy (default 30m)',
      },
      keep: { type: 'boolean', help: 'leave the scratch home' },
      operator: { type: 'string', value: '<valoper-address>', help: "the scratch validator's operator address for in-place-testnet" },
      output: { type: 'string', short: 'o', choices: ['json', 'text'], help: 'json: the report as JSON; text (the default): for people' },
    },
    rest: '<node flags>',
  },
  help: [
    'Copies data/ into a scratch home without stopping the node (the live keys and signing state are never used),',
    "makes it a one-validator testnet with the current binary's in-place-testnet, lets it halt for the upgrade,",
    "applies chainvisor's own upgrade sequence to the scratch and waits for --blocks (default 3) blocks of the new",
    'binary past the upgrade height. The upgrade defaults to the plan scheduled on chain, else the first queued',
    'manual upgrade; its binary must be installed in upgrades/<name>/. Takes no home lock: runs beside chainvisor',
    'run. --timeout (default 30m) bounds the run after the copy; --keep leaves the scratch home; flags after --',
    "go to the scratch node's in-place-testnet and start. The result is kept in cosmovisor/.chainvisor/rehearsals.json.",
    'Exit 0 passed, 83 failed (the upgrade failed on the copy), 79 could not rehearse, 64 usage. See docs/rehearsal.md.',
  ].join('\n'),
  async run(ctx, { values, positionals, rest: nodeArgs }) {
    const output = values.output ?? 'text';
    const blocks = values.blocks ?? 3;
    const timeoutMs = values.timeout ?? 30 * 60_000;
    const loaded = loadContextConfig(ctx);
    const { config } = loaded;
    const layout = layoutFor(config);
    const [{ createLogger }, rehearsal, { pickUpgrade }, { createEventBus }, { startProgressView }] = await Promise.all([
      import('../../shared/log.js'),
      import('../../rehearsal/index.js'),
      import('./rehearse-pick.js'),
      import('../../shared/events/index.js'),
      import('../../shared/progress/index.js'),
    ]);
    const logger = createLogger(logOptions(config));
    const upgrade = positionals[0] ?? (await pickUpgrade(loaded, layout, logger));
    const stop = new AbortController();
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, `received ${signal}: stopping the scratch node and removing the scratch home`);
      stop.abort(
        new ChainvisorError(
          'CHAINVISOR_REHEARSAL_INTERRUPTED',
          `the rehearsal of "${upgrade}" was stopped by ${signal}; the scratch node was stopped and the scratch home removed`,
        ),
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    const terminal = (ctx.stderr as { isTTY?: boolean }).isTTY === true;
    // On a terminal: a line per phase, and the copy's progress bar.
    const events = terminal ? createEventBus() : undefined;
    const stopView = events && startProgressView({ bus: events, logger, tty: ctx.stderr });
    try {
      const report = await rehearsal.rehearse({
        config,
        layout,
        logger,
        upgrade,
        blocks,
        timeoutMs,
        keep: values.keep,
        operator: values.operator,
        nodeArgs,
        signal: stop.signal,
        ...(events ? { events, progress: (text: string) => ctx.stderr.write(`rehearse: ${text}\n`) } : {}),
      });
      await rehearsal.recordRehearsal(layout, report);
      writeLine(ctx.stdout, output === 'json' ? JSON.stringify(report, null, 2) : rehearsal.renderReport(report));
      return report.result === 'passed' ? ExitCode.ok : ExitCode.rehearsalFailed;
    } catch (error) {
      const thrown = stop.signal.aborted ? (stop.signal.reason as Error) : error;
      if (output === 'json' && thrown instanceof ChainvisorError) {
        writeLine(
          ctx.stdout,
          JSON.stringify({ upgrade, result: 'not-rehearsed', reason: thrown.message, code: thrown.code, hint: thrown.hint ?? null }, null, 2),
        );
      }
      throw thrown;
    } finally {
      stopView?.();
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
  },
});
