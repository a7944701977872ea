/** What every `chainvisor <command>` implements. Commands return an exit code; only `main` prints errors. */
import type { Writable } from 'node:stream';

import { anyChannelOn } from '../alerts/index.js';
import { type Config, loadConfig, type LoadedConfig } from '../config/index.js';
import { ConfigError } from '../shared/errors/index.js';
import type { LoggerOptions } from '../shared/log.js';
import { proxyProblems, proxySettings } from '../shared/net/index.js';
import { type ArgsSpec, type ParsedArgs, usageLine } from './args.js';

export interface CommandContext {
  /** Arguments after the command name, untouched (`run` passes them to the node; the others' are parsed by args.ts). */
  args: string[];
  env: NodeJS.ProcessEnv;
  /** From the global `--config <file>` option. */
  configFile: string | undefined;
  /** From `--cosmovisor-config <file>` (before the command, or anywhere after it). */
  cosmovisorConfigFile?: string | undefined;
  stdout: Writable;
  stderr: Writable;
}

/** `run`'s arguments: the node's, passed on as they are (`--help` included); this names them in the usage line. */
export interface NodeArguments {
  node: string;
}

export interface Command<S extends ArgsSpec = ArgsSpec> {
  name: string;
  /** One line for `chainvisor help`. */
  summary: string;
  /** What the command takes, declared once: its parsing, usage line and option table derive from it (args.ts). */
  args: S | NodeArguments;
  /**
   * Longer help for `chainvisor help <name>` and `<name> --help`, before the option table. A function
   * when part of it comes from a module the command loads only when it runs (check-plan's formats,
   * from verify/): other commands then never evaluate that module.
   */
  help: string | (() => Promise<string>);
  run(ctx: CommandContext, args: ParsedArgs<S>): Promise<number>;
}

/** A command with the types of its parsed arguments inferred from its declaration. */
export function defineCommand<const S extends ArgsSpec>(command: Command<S>): Command<S> {
  return command;
}

/** `chainvisor <name> …` synopsis. */
export function usageOf(command: Command): string {
  return 'node' in command.args ? `chainvisor ${command.name} ${command.args.node}` : usageLine(command.name, command.args);
}

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

export function writeLine(stream: Writable, line = ''): void {
  stream.write(`${line}\n`);
}
