import type { LoadedConfig } from '../../config/index.js';
import {
  customPreUpgradeProblem,
  ensureCurrentLink,
  type Layout,
  layoutFor,
  removeLeftoverSwitchFiles,
  removeLeftoverWorkFolders,
  requireHome,
  switchCurrent,
} from '../../home/layout/index.js';
import type { Logger } from '../../shared/log.js';
import type { Command } from '../command.js';
import { loadContextConfig, logOptions } from '../settings.js';
import { version } from '../version.js';

export const runCommand: Command = {
  args: { node: '<node arguments…>' },
  help: [
    'Starts current/bin/$DAEMON_NAME with the arguments exactly as given (for example: run start --home ~/.simapp),',
    'passes stdin, stdout and stderr through, watches data/upgrade-info.json and applies upgrades.',
    "chainvisor's own logs go to stderr. Everything after 'run', including --help, goes to the node.",
    'CHAINVISOR_HTTP_ADDRESS serves /metrics, /healthz and /status; CHAINVISOR_WEBHOOK_URL receives upgrade events.',
    "CHAINVISOR_NETWORK_RPC (other nodes' RPCs) lets it refuse to start, or stop, a validator whose key signs elsewhere (exit 84).",
  ].join('\n'),
  async run(ctx) {
    const loaded = loadContextConfig(ctx);
    const { config } = loaded;
    // The supervisor's machinery (pino, gRPC, prom-client, archives …) is loaded here, when it is used:
    // `help`, `version` and `status` never evaluate it, which keeps them fast.
    const [{ removePartialBackups }, { acquireHomeLock, restoreSigning, stopOrphanNode }, { createLogger }, { removeLeftoverRehearsals }] = await Promise.all([
      import('../../home/backup/index.js'),
      import('../../guard/index.js'),
      import('../../shared/log.js'),
      import('../../rehearsal/index.js'),
    ]);
    const pretty = config.logFormat === 'auto' ? process.stderr.isTTY : config.logFormat === 'text';
    const logger = createLogger(logOptions(config));
    const layout = layoutFor(config);
    await requireHome(layout);
    // Not a reason to keep the node from signing: said loudly now, the upgrade fails at this step (80).
    const script = await customPreUpgradeProblem(layout.root, config.customPreUpgrade);
    if (script) logger.error({ setting: 'COSMOVISOR_CUSTOM_PREUPGRADE' }, 'COSMOVISOR_CUSTOM_PREUPGRADE: %s', script);
    // Before anything is written or started: one chainvisor per home, and no node left by a killed one.
    const lock = await acquireHomeLock({ layout, version, logger });
    try {
      await stopOrphanNode({ layout, logger, graceMs: config.shutdownGrace });
      // What a killed chainvisor left half-done; only now, so a refused second run never touches the first's.
      await removeLeftoverWorkFolders({ parents: [layout.root, layout.upgradesDir], logger });
      await removePartialBackups({ config, logger });
      // A restore a crash interrupted (issue #28): finished or undone before the node may start.
      await (await import('../../home/backup/index.js')).resumeInterruptedRestore({ layout, logger, signing: restoreSigning(layout) });
      await removeLeftoverRehearsals({ rehearsalDir: config.rehearsalDir, logger });
      for (const file of await removeLeftoverSwitchFiles(layout)) {
        logger.info({ file }, 'removed a file left by an interrupted switch (current was not changed by it): %s', file);
      }
      return await supervise(ctx.args, { loaded, layout, logger, pretty });
    } finally {
      await lock.release();
    }
  },
};

/** Everything after the lock: the `current` link, the observers, and the supervisor itself. */
async function supervise(args: string[], options: { loaded: LoadedConfig; layout: Layout; logger: Logger; pretty: boolean }): Promise<number> {
  const { loaded, layout, logger, pretty } = options;
  const { config } = loaded;
  const [
    { addressesFor, resolveChainAddresses },
    { createEventBus },
    { createNodeTracker },
    { startObservers },
    { Supervisor },
    { followRehearsals, readRehearsals, startAutoRehearsal },
  ] = await Promise.all([
    import('../../chain/index.js'),
    import('../../shared/events/index.js'),
    import('../../guard/index.js'),
    import('../../observe/index.js'),
    import('../../supervisor/index.js'),
    import('../../rehearsal/index.js'),
  ]);
  if (await ensureCurrentLink(layout, switchCurrent)) {
    logger.info({ current: layout.currentLink }, "'current' was missing: created it as a link to genesis (as cosmovisor does)");
  }
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
  // Where the node listens, as it finds it itself: its flags (these arguments), then its config files.
  const addresses = addressesFor(loaded, args);
  // Published in the node record for `prepare-upgrade`, `rehearse` and `add-upgrade`, which have no node
  // arguments: the node's own word (its flags and files), not the operator's settings, which they read themselves.
  const tracker = createNodeTracker({ layout, logger, addresses: resolveChainAddresses({ home: config.home, args }) });
  const { grpc, rpc } = addresses;
  logger.info(
    { grpc: grpc.enabled ? grpc.address : 'off', grpcSource: grpc.source, rpc: rpc.address, rpcSource: rpc.source },
    "the chain is read from %s, else from the node's RPC at %s [%s]",
    grpc.enabled ? `the node's gRPC at ${grpc.address} [${grpc.source}]` : `no gRPC (off: ${grpc.source})`,
    rpc.address,
    rpc.source,
  );
  // Rehearsals (docs/rehearsal.md): their results become events; CHAINVISOR_REHEARSE runs them in the background.
  const rehearsals = followRehearsals({ layout, bus: events });
  const auto = config.rehearse ? startAutoRehearsal({ config, layout, logger, bus: events }) : undefined;
  try {
    return await new Supervisor({ config, layout, args, logger, events, tracker, addresses, rehearsals: () => readRehearsals(layout) }).run();
  } finally {
    await auto?.stop();
    rehearsals.close();
    // The last events (node-exited, upgrade-failed) still reach the webhooks before chainvisor exits.
    await observers.close();
    await tracker.settled();
  }
}
