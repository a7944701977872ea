/** What every `chainvisor <command>` implements. Commands return an exit code; only `main` prints errors. */
import type { Writable } from 'node:stream';

import { type Config, loadConfig, type LoadedConfig } from '../config/index.js';
import { ConfigError } from '../shared/errors/index.js';
import type { LoggerOptions } from '../shared/log.js';
import { proxyProblems, proxySettings } from '../shared/net/index.js';

export interface CommandContext {
  /** Arguments after the command name, untouched. */
  args: string[];
  env: NodeJS.ProcessEnv;
  /** From the global `--config <file>` option. */
  configFile: string | undefined;
  /** From `--cosmovisor-config <file>` (before the command, or anywhere after it). */
  cosmovisorConfigFile?: string | undefined;
  stdout: Writable;
  stderr: Writable;
}

export interface Command {
  name: string;
  /** One line for `chainvisor help`. */
  summary: string;
  /** `chainvisor <name> …` synopsis. */
  usage: string;
  /** Longer help for `chainvisor help <name>` and `<name> --help`. */
  help: string;
  /** `run` passes `--help` to the node; every other command answers it itself. */
  passesHelpThrough?: boolean;
  run(ctx: CommandContext): Promise<number>;
}

export function loadContextConfig(ctx: CommandContext): LoadedConfig {
  const loaded = loadConfig({
    env: ctx.env,
    ...(ctx.configFile === undefined ? {} : { configFile: ctx.configFile }),
    ...(ctx.cosmovisorConfigFile === undefined ? {} : { cosmovisorConfigFile: ctx.cosmovisorConfigFile }),
  });
  // A proxy variable that is not a proxy URL: Go ignores it and goes direct, which on a network whose
  // only way out is the proxy fails at the upgrade height. Refused now instead, when anything would
  // use it (downloads, webhooks, the twin check's network RPC); a node that never uses it runs as with
  // cosmovisor.
  const c = loaded.config;
  const alerts = c.slackWebhookUrl !== '' || c.discordWebhookUrl !== '' || c.telegramBotToken !== '' || c.pagerdutyRoutingKey !== '';
  if (c.allowDownloadBinaries || c.webhookUrl !== '' || c.networkRpc !== '' || alerts) {
    const problems = proxyProblems(proxySettings(ctx.env));
    if (problems.length > 0) throw new ConfigError(problems);
  }
  return loaded;
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

export function writeLine(stream: Writable, line = ''): void {
  stream.write(`${line}\n`);
}
