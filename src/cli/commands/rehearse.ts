/**
 * `chainvisor rehearse`: the upgrade run on a scratch copy of this node's state (src/rehearsal/, docs/rehearsal.md).
 * Parses the command line (64 when wrong), picks the upgrade, stops cleanly on SIGTERM/SIGINT, prints the
 * report (text or JSON) and records it; exit 0 passed, 83 failed, 79 could not rehearse.
 */
import { parseArgs } from 'node:util';

import { parseDuration } from '../../config/index.js';
import { layoutFor } from '../../home/layout/index.js';
import { ChainvisorError, ExitCode, UsageError } from '../../shared/errors/index.js';
import { type Command, loadContextConfig, logOptions, writeLine } from '../command.js';

const usage =
  'chainvisor rehearse [<upgrade-name>] [--blocks N] [--timeout <duration>] [--keep] [--operator <valoper-address>] [--output json] [-- <node flags>]';

export const rehearseCommand: Command = {
  name: 'rehearse',
  summary: "rehearse an upgrade on a scratch copy of this node's state, while the node keeps running",
  usage,
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
  async run(ctx) {
    const dash = ctx.args.indexOf('--');
    const own = dash === -1 ? ctx.args : ctx.args.slice(0, dash);
    const nodeArgs = dash === -1 ? [] : ctx.args.slice(dash + 1);
    const parsed = parseOrUsage(own);
    const { values, positionals } = parsed;
    if (positionals.length > 1) throw new UsageError(`rehearse takes one upgrade name, got ${positionals.length}; usage: ${usage}`);
    const output = values.output ?? 'text';
    if (output !== 'json' && output !== 'text') throw new UsageError(`--output must be json or text, not ${JSON.stringify(output)}`);
    const blocks = values.blocks === undefined ? 3 : Number(values.blocks);
    if (!Number.isSafeInteger(blocks) || blocks < 1)
      throw new UsageError(`--blocks must be a whole number of at least 1, not ${JSON.stringify(values.blocks)}`);
    const timeout = parseDuration(values.timeout ?? '30m');
    if (!timeout.ok || timeout.value <= 0) throw new UsageError(`--timeout must be a duration such as 10m or 90s, not ${JSON.stringify(values.timeout)}`);
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
        timeoutMs: timeout.value,
        keep: values.keep === true,
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
};

function parseOrUsage(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        blocks: { type: 'string' },
        timeout: { type: 'string' },
        keep: { type: 'boolean' },
        operator: { type: 'string' },
        output: { type: 'string', short: 'o' },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; usage: ${usage}`);
  }
}
