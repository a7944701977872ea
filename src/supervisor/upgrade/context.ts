/** What every step of the upgrade (compose.ts) is given: the settings, the home, the log, the stop signal, the bus. */
import type { Config } from '../../config/index.js';
import type { Downloader } from '../../download/index.js';
import type { Layout } from '../../home/layout/index.js';
import type { EventBus } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log.js';

export interface UpgradeContext {
  config: Config;
  layout: Layout;
  logger: Logger;
  /** Aborted when chainvisor is asked to stop; checked between steps. */
  signal: AbortSignal;
  download?: Downloader;
  /** Where the upgrade's events go (detected, applied, failed; backup and download progress); a private bus, logged, by default. */
  events?: EventBus;
  /** Arguments after `<new binary> pre-upgrade`: a rehearsal's `--home <scratch>`; none on the live node. */
  preUpgradeArgs?: readonly string[];
}
