/**
 * Everything that watches the supervisor from outside, started by `chainvisor run` before the node and
 * closed after it: the live status (and its file for `chainvisor status`), progress lines, webhooks,
 * and — only when CHAINVISOR_HTTP_ADDRESS is set — metrics and the HTTP endpoint. All of them only
 * listen to the event bus: none can delay or change an upgrade. Settings are checked here, before the
 * node starts, so a typo stops chainvisor (exit 78) instead of leaving a fleet unmonitored.
 */
import type { Config } from '../config/index.js';
import type { Layout } from '../home/layout/index.js';
import { type ChannelSettings, type NodeFacts, type NotifySettings, parseNotifySettings } from '../shared/alerts/index.js';
import { etaOf } from '../shared/eta.js';
import type { EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import { startProgressView } from '../shared/progress/index.js';
import {
  loadFailureRepeats,
  type Notifications,
  parseWebhookTargets,
  startNotifications,
  startWebhooks,
  type Webhooks,
  type WebhookTarget,
} from './delivery/index.js';
import type { HttpServer, ListenAddress } from './http/index.js';
import type { Metrics } from './metrics.js';
import { identityOf, readNodeFacts } from './node-identity.js';
import { buildStatus, type StatusDocument, trackLive, writeStatusFile } from './status/index.js';

export interface ObserverOptions {
  config: Config;
  layout: Layout;
  bus: EventBus;
  logger: Logger;
  version: string;
  /** Draw progress bars here (a terminal) instead of logging progress lines. */
  progressTty?: NodeJS.WriteStream;
}

export interface Observers {
  /** The status document as `/status` serves it. */
  status(): Promise<StatusDocument>;
  /** Where the HTTP endpoint listens, when it is on. */
  httpAddress: string | undefined;
  /** Flushes webhooks (up to `flushMs`), writes the last status, closes the endpoint. */
  close(flushMs?: number): Promise<void>;
}

/**
 * CHAINVISOR_WEBHOOK_URL and CHAINVISOR_HTTP_ADDRESS as `run` reads them: a bad one throws its coded
 * error (78). `config` calls this too, so it refuses what `run` would.
 */
export async function checkObserverSettings(
  config: Pick<Config, 'webhookUrl' | 'httpAddress'> & Partial<ChannelSettings>,
): Promise<{ targets: WebhookTarget[]; notify: NotifySettings; listen: ListenAddress | undefined }> {
  const targets = parseWebhookTargets(config.webhookUrl);
  const notify = parseNotifySettings(config);
  const listen = config.httpAddress === '' ? undefined : (await import('./http/index.js')).parseListenAddress(config.httpAddress);
  return { targets, notify, listen };
}

/** How long `run` keeps its endpoint up after key-in-use for Prometheus to read it (one scrape interval at most, usually). */
const alertLingerMs = 60_000;

export async function startObservers(options: ObserverOptions): Promise<Observers> {
  const { config, layout, bus, logger } = options;
  const { targets, notify, listen } = await checkObserverSettings(config);
  // Loaded only when the endpoint is on: prom-client and the HTTP server are not idle weight otherwise.
  const http = listen === undefined ? undefined : await import('./http/index.js');

  const tracker = trackLive({ bus, version: options.version });
  // One scrape usually asks /metrics, /healthz and /status together: they share one reading of the
  // home for up to a second, unless an event changed the live state meanwhile.
  let cached: { at: number; doc: Promise<StatusDocument> } | undefined;
  tracker.onChange(() => {
    cached = undefined;
  });
  const status = (): Promise<StatusDocument> => {
    const now = Date.now();
    if (cached && now - cached.at < 1000) return cached.doc;
    const doc = buildStatus({ layout, backupDir: config.dataBackupDir, version: options.version, live: tracker.state() });
    const entry = { at: now, doc };
    cached = entry;
    doc.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return doc;
  };
  const stopProgress = startProgressView({ bus, logger, ...(options.progressTty ? { tty: options.progressTty } : {}) });
  // Both kinds of receivers share one record of the failures sent, so a restart loop pages once an hour.
  const repeats = targets.length > 0 || notify.channels.length > 0 ? await loadFailureRepeats({ stateDir: layout.stateDir, logger }) : undefined;
  const webhooks: Webhooks | undefined = targets.length > 0 ? startWebhooks({ targets, bus, logger, events: notify.events, repeats }) : undefined;
  if (webhooks) logger.info({ webhooks: targets.map((t) => t.shown) }, 'sending upgrade events to %d webhook receiver(s)', targets.length);
  // The node's moniker and chain id, for the alerts and the metrics' node info, read once in the
  // background; a genesis of gigabytes is scanned for its chain id, and a stop does not wait for it.
  const identityStop = new AbortController();
  let facts: Promise<NodeFacts> | undefined;
  const nodeFacts = (): Promise<NodeFacts> => (facts ??= readNodeFacts(layout.home, undefined, identityStop.signal));
  // The alert channels (issue #27, shared/alerts/).
  const notifications: Notifications | undefined =
    notify.channels.length > 0
      ? startNotifications({
          channels: notify.channels,
          bus,
          logger,
          facts: nodeFacts(),
          eta: (height) => etaOf(height, tracker.state().blockTime ?? null),
          repeats,
        })
      : undefined;
  if (notifications)
    logger.info({ channels: notify.channels.map((c) => c.name) }, 'sending upgrade events to %s', notify.channels.map((c) => c.name).join(', '));

  let metrics: Metrics | undefined;
  let server: HttpServer | undefined;
  let keyInUse = false;
  const offKeyInUse = bus.on((e) => {
    if (e.event === 'key-in-use') keyInUse = true;
  });
  if (http && listen) {
    const { createMetrics } = await import('./metrics.js');
    const created = createMetrics({
      bus,
      version: options.version,
      snapshot: async () => {
        const doc = await status();
        return {
          nodeUp: doc.node.state === 'running',
          current: doc.current.name,
          pending: doc.pending,
          blockTimeSeconds: tracker.state().blockTime?.seconds ?? null,
          rehearsals: doc.rehearsals,
          proposals: doc.proposals,
        };
      },
      identity: nodeFacts().then((read) => identityOf(read, config.name)),
    });
    metrics = created;
    try {
      server = await http.startHttpServer({
        listen,
        token: config.httpToken,
        logger,
        routes: {
          metrics: async () => ({ contentType: created.contentType, body: await created.render() }),
          health: async () => (await status()).health,
          status,
        },
      });
    } catch (error) {
      identityStop.abort();
      created.close();
      await Promise.all([webhooks?.close(0), notifications?.close(0)]);
      stopProgress();
      tracker.close();
      throw error;
    }
    tracker.setHttp(server.address);
    logger.info({ address: server.address, token: config.httpToken !== '' }, 'HTTP endpoint listening: /metrics, /healthz, /status');
    if (!listen.loopback && config.httpToken === '') {
      logger.warn(
        { address: server.address },
        'the HTTP endpoint listens beyond this host without CHAINVISOR_HTTP_TOKEN: anyone who can reach it can read the status',
      );
    }
  }
  const statusFile = writeStatusFile({ layout, tracker, logger });

  return {
    status,
    httpAddress: server?.address,
    async close(flushMs = 5000) {
      offKeyInUse();
      identityStop.abort();
      const flushing = Promise.all([webhooks?.close(flushMs), notifications?.close(flushMs)]);
      // A key in use elsewhere stops the node and ends `run` at once: the endpoint stays up until
      // Prometheus has read the alert (at most a minute; a stop signal ends the wait), or it would
      // never see chainvisor_key_in_use at 1.
      if (metrics && keyInUse) {
        const stop = new AbortController();
        const onSignal = (): void => stop.abort();
        for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, onSignal);
        logger.info('keeping the HTTP endpoint up until the key-in-use alert is scraped (at most 60 s)');
        await metrics.alertRead(alertLingerMs, stop.signal);
        for (const signal of ['SIGTERM', 'SIGINT'] as const) process.off(signal, onSignal);
      }
      await flushing;
      await repeats?.settled();
      await statusFile.close();
      await server?.close();
      metrics?.close();
      stopProgress();
      tracker.close();
    },
  };
}
