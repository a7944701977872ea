/**
 * The alert channels (issue #27), one row each (issue #33): a new channel is its file beside this one
 * and its row below. What the rest of chainvisor knows of the channels is read from here: the
 * settings, the proxy check of every command, and `notify`'s help and its "none configured" problem.
 * Why, and the rest of its rules: docs/design/alerts.md#alertsregistryts.
 */
import { ConfigError, type ConfigProblem } from '../errors/index.js';
import type { AlertChannel, Channel, SettingValues } from './channel.js';
import { discord } from './discord.js';
import { chatEvents, testEvent } from './notice.js';
import { pagerduty } from './pagerduty.js';
import { slack } from './slack.js';
import { telegram } from './telegram.js';

/** In the order the settings table, `notify --help` and `notify --test`'s report list them. */
export const alertChannels = [slack, discord, telegram, pagerduty] as const;

/** The same list, each channel seen through what every channel has. */
const channels: readonly AlertChannel[] = alertChannels;

type Merged<U> = (U extends unknown ? (all: U) => void : never) extends (all: infer M) => void ? M : never;

/** Every channel's settings, in the registry's order, for config/settings/observe.ts. */
export const alertSettings = Object.assign({}, ...alertChannels.map((channel) => channel.settings)) as Merged<(typeof alertChannels)[number]['settings']>;

/** The settings `parseNotifySettings` reads, as `Config` holds them (a missing one is its default). */
export type ChannelSettings = { readonly notifyEvents: string } & SettingValues<typeof alertSettings>;

export interface NotifySettings {
  channels: Channel[];
  /** CHAINVISOR_NOTIFY_EVENTS; undefined for all. */
  events: ReadonlySet<string> | undefined;
}

export function parseNotifySettings(config: Partial<ChannelSettings>): NotifySettings {
  const problems: ConfigProblem[] = [];
  const events = parseEvents(config.notifyEvents ?? 'all', problems);
  const wanted = (event: string) => event === testEvent || events === undefined || events.has(event);
  const on = channels.flatMap((channel) => {
    const parsed = channel.parse(valuesOf(channel, config), { problems, wanted });
    return parsed === undefined ? [] : [parsed];
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return { channels: on, events };
}

/** Whether any channel is turned on: every command that would then post refuses an unusable proxy first. */
export function anyChannelOn(config: Partial<ChannelSettings>): boolean {
  return channels.some((channel) => valuesOf(channel, config)[channel.switch] !== '');
}

/** The variables that turn the channels on, for the problem of a `notify --test` with none. */
export function channelSwitches(): string {
  return channels.map((channel) => channel.settings[channel.switch]?.env).join(', ');
}

/** "Slack, Discord, Telegram and PagerDuty". */
export function channelTitles(): string {
  const titles = alertChannels.map((channel) => channel.title);
  return titles.length < 2 ? titles.join('') : `${titles.slice(0, -1).join(', ')} and ${titles.at(-1)}`;
}

/** A channel's values as the config holds them; one it does not hold (a partial config in a test) is the setting's default. */
function valuesOf(channel: AlertChannel, config: Partial<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(channel.settings).map(([key, spec]) => [key, config[key] ?? spec.default ?? '']));
}

function parseEvents(value: string, problems: ConfigProblem[]): ReadonlySet<string> | undefined {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0 || names.includes('all')) return undefined;
  const known = new Set<string>(chatEvents);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0)
    problems.push({
      setting: 'CHAINVISOR_NOTIFY_EVENTS',
      value,
      message: `unknown event ${unknown.join(', ')}; use all, or some of: ${chatEvents.join(', ')}`,
    });
  return new Set(names);
}
