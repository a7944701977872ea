/**
 * The settings a command runs with, and what follows from them before it acts: a proxy variable that
 * cannot be used is refused, and the log is set up as the operator asked. Imported by the commands
 * only, so that `help` and `--version` never load config/, the alert channels or the HTTP client.
 */
import { type Config, loadConfig, type LoadedConfig } from '../config/index.js';
import { anyChannelOn } from '../shared/alerts/index.js';
import { ConfigError } from '../shared/errors/index.js';
import { shownText } from '../shared/json.js';
import type { LoggerOptions } from '../shared/log.js';
import { proxyProblems, proxySettings } from '../shared/net/index.js';
import type { CommandContext } from './command.js';

export function loadContextConfig(ctx: CommandContext): LoadedConfig {
  const loaded = loadConfig({
    env: ctx.env,
    ...(ctx.configFile === undefined ? {} : { configFile: ctx.configFile }),
    ...(ctx.cosmovisorConfigFile === undefined ? {} : { cosmovisorConfigFile: ctx.cosmovisorConfigFile }),
  });
  // A proxy variable that is not a proxy URL: Go ignores it and goes direct, which on a network whose
  // only way out is the proxy fails at the upgrade height. Refused now instead, when anything would
  // use it (downloads, webhooks, an alert channel, the twin check's network RPC); a node that never
  // uses it runs as with cosmovisor.
  const c = loaded.config;
  if (c.allowDownloadBinaries || c.webhookUrl !== '' || c.networkRpc !== '' || anyChannelOn(c)) refuseUnusableProxies(ctx.env);
  warnIgnoredKeys(loaded);
  return loaded;
}

/**
 * A key of cosmovisor's config.toml that is no setting (a newer cosmovisor's, another tool's) is ignored,
 * as cosmovisor ignores it: a warning, never a validator stopped at boot (issue #43).
 */
function warnIgnoredKeys(loaded: LoadedConfig): void {
  const file = loaded.cosmovisorConfigFile;
  const keys = loaded.ignoredKeys;
  if (file === undefined || keys.length === 0) return;
  const options = logOptions(loaded.config);
  // The logger is loaded for this line only: `status` and `config` use none otherwise.
  void import('../shared/log.js').then(
    ({ createLogger }) => {
      const logger = createLogger(options);
      for (const key of keys) {
        logger.warn(
          { file, key: shownText(key) },
          `unknown key "${shownText(key)}" in ${file}: ignored, as cosmovisor ignores it; check its spelling ('chainvisor config' lists the settings) or remove it`,
        );
      }
    },
    (error: unknown) =>
      process.stderr.write(
        `chainvisor: warning: unknown keys in ${file} ignored (${keys.map((k) => shownText(k)).join(', ')}); the log could not be set up: ${String(error)}\n`,
      ),
  );
}

/** Exit 78 when a proxy variable cannot be used (not a URL, credentials that cannot be decoded or sent). */
export function refuseUnusableProxies(env: NodeJS.ProcessEnv): void {
  const problems = proxyProblems(proxySettings(env));
  if (problems.length > 0) throw new ConfigError(problems);
}

/** The log as the operator set it: COSMOVISOR_DISABLE_LOGS, COSMOVISOR_COLOR_LOGS, COSMOVISOR_TIMEFORMAT_LOGS, CHAINVISOR_LOG_FORMAT. */
export function logOptions(config: Config): LoggerOptions {
  return {
    disabled: config.disableLogs,
    color: config.colorLogs,
    timeFormat: config.timeFormatLogs,
    ...(config.logFormat === 'auto' ? {} : { pretty: config.logFormat === 'text' }),
  };
}
