/**
 * The settings a command runs with, and what follows from them before it acts: a proxy variable that
 * cannot be used is refused, and the log is set up as the operator asked. Imported by the commands
 * only, so that `help` and `--version` never load config/, the alert channels or the HTTP client.
 */
import { type Config, loadConfig, type LoadedConfig } from '../config/index.js';
import { anyChannelOn } from '../shared/alerts/index.js';
import { ConfigError } from '../shared/errors/index.js';
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
  return loaded;
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
