import { removePartialBackups } from '../../backup/index.js';
import { createEventBus } from '../../events/index.js';
import { ensureCurrentLink, layoutFor, requireHome, switchCurrent } from '../../layout/index.js';
import { createLogger } from '../../log/index.js';
import { startObservers } from '../../observe/index.js';
import { Supervisor } from '../../supervisor/index.js';
import { type Command, loadContextConfig } from '../command.js';
import { version } from '../version.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'run the node under supervision and switch binaries at upgrades',
  usage: 'chainvisor run <node arguments…>',
  help: [
    'Starts current/bin/$DAEMON_NAME with the arguments exactly as given (for example: run start --home ~/.simapp),',
    'passes stdin, stdout and stderr through, watches data/upgrade-info.json and applies upgrades.',
    "chainvisor's own logs go to stderr. Everything after 'run', including --help, goes to the node.",
    'CHAINVISOR_HTTP_ADDRESS serves /metrics, /healthz and /status; CHAINVISOR_WEBHOOK_URL receives upgrade events.',
  ].join('\n'),
  passesHelpThrough: true,
  async run(ctx) {
    const { config } = loadContextConfig(ctx);
    const pretty = config.logFormat === 'auto' ? process.stderr.isTTY : config.logFormat === 'text';
    const logger = createLogger({
      disabled: config.disableLogs,
      color: config.colorLogs,
      timeFormat: config.timeFormatLogs,
      ...(config.logFormat === 'auto' ? {} : { pretty: config.logFormat === 'text' }),
    });
    const layout = layoutFor(config);
    await requireHome(layout);
    if (await ensureCurrentLink(layout, switchCurrent)) {
      logger.info({ current: layout.currentLink }, "'current' was missing: created it as a link to genesis (as cosmovisor does)");
    }
    await removePartialBackups({ config, logger });
    // One bus: the supervisor (and the stages it runs) emit, the observers listen.
    const events = createEventBus();
    const observers = await startObservers({
      config,
      layout,
      bus: events,
      logger,
      version,
      ...(pretty && process.stderr.isTTY && !config.disableLogs ? { progressTty: process.stderr } : {}),
    });
    try {
      return await new Supervisor({ config, layout, args: ctx.args, logger, events }).run();
    } finally {
      // The last events (node-exited, upgrade-failed) still reach the webhooks before chainvisor exits.
      await observers.close();
    }
  },
};
