import { setTimeout as delay } from 'node:timers/promises';

import { layoutFor, requireHome } from '../../home/layout/index.js';
import { renderStatus, statusOfHome, watchLine, watchScreen } from '../../observe/status/index.js';
import { UsageError } from '../../shared/errors/index.js';
import { type CommandContext, defineCommand, writeLine } from '../command.js';
import { loadContextConfig } from '../settings.js';
import { version } from '../version.js';

export const statusCommand = defineCommand({
  args: {
    options: {
      output: { type: 'string', short: 'o', choices: ['json', 'text'], help: 'json: the document GET /status gives; text (the default): for people' },
      watch: { type: 'boolean', short: 'w', help: 'follow the status until Ctrl-C (see above)' },
    },
  },
  help: [
    "With 'chainvisor run' active for this home, shows its live state (the node's pid and state, the last upgrade,",
    'the chain height, the network after the upgrade) from the status file it keeps in',
    'cosmovisor/.chainvisor/status.json; without it, what the home says. --output json prints the same document',
    'as GET /status on the HTTP endpoint.',
    '',
    '--watch: on a terminal, redraws once a second the node, the plan and the blocks left, and after an upgrade',
    "the network's height and round, a bar of the prevote share and this validator's vote (what pvtop shows);",
    'elsewhere, prints one line each time that changes. Ends on Ctrl-C, with status 0.',
    '',
    'Refuses (exit 78) when $DAEMON_HOME or $DAEMON_HOME/cosmovisor does not exist.',
  ].join('\n'),
  async run(ctx, { values }) {
    const { output, watch } = values;
    if (watch && output === 'json') throw new UsageError('--watch shows the status for people; use --output json without --watch, or GET /status');
    const { config } = loadContextConfig(ctx);
    const layout = layoutFor(config);
    // A status of a folder that is not a home would read as a plausible one (current genesis, nothing queued).
    await requireHome(layout);
    const read = () => statusOfHome({ layout, backupDir: config.dataBackupDir, version });
    if (watch) return watchStatus(ctx, read);
    const doc = await read();
    writeLine(ctx.stdout, output === 'json' ? JSON.stringify(doc, null, 2) : renderStatus(doc));
    return 0;
  },
});

/** `--watch`: until SIGINT or SIGTERM, which end it with status 0. */
async function watchStatus(ctx: CommandContext, read: () => ReturnType<typeof statusOfHome>): Promise<number> {
  const tty = (ctx.stdout as NodeJS.WriteStream).isTTY === true;
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let last = '';
  try {
    if (tty) ctx.stdout.write('\x1b[?25l'); // no cursor blinking over the bar
    while (!stop.signal.aborted) {
      const doc = await read();
      if (tty) {
        const screen = [`chainvisor status --watch  ${new Date().toISOString().slice(11, 19)}  (Ctrl-C ends)`, '', ...watchScreen(doc)];
        ctx.stdout.write(`\x1b[H\x1b[2J${screen.join('\n')}\n`);
      } else {
        const line = watchLine(doc);
        if (line !== last) writeLine(ctx.stdout, `${new Date().toISOString()} ${line}`);
        last = line;
      }
      await delay(1000, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  } finally {
    if (tty) ctx.stdout.write('\x1b[?25h');
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return 0;
}
