/**
 * What one alert channel's file exports (issue #33): its name, its settings (as the settings table
 * describes them: docs/settings.md and config.example.json list them from here), the parsing of those
 * settings, and its message format. The registry (registry.ts) lists the channels; config, `notify`
 * and the proxy check of every command read it, so a new channel is one file and one row there.
 * Delivery (queue, retries, the HTTP POST) is not a channel's business: observe/delivery/ does it for
 * every channel alike.
 */
import type { ConfigProblem } from '../errors/index.js';
import type { SettingSpec } from '../setting-spec.js';
import type { NodeFacts } from './node-facts.js';
import type { Notice } from './notice.js';

/** A channel's settings: every one is text (a URL, a token, an id), so each is an `env`-named string. */
export type ChannelSettingSpecs = Record<string, SettingSpec & { readonly kind: 'string' }>;

/** The values of a channel's settings, each as written (or its default), keyed as in its `settings`. */
export type SettingValues<S extends ChannelSettingSpecs> = { readonly [K in keyof S]: string };

/** One channel, turned on and checked: where it posts and how it renders. */
export interface Channel {
  name: string;
  url: URL;
  /** Fragments that must never reach a log line or an error: path tokens, credentials, bot token, routing key. */
  secrets: string[];
  /** The renderer for one run: a notice's bodies (none when this channel does not send it). */
  formatter(facts: NodeFacts): (notice: Notice) => string[];
}

export interface ParseContext {
  /** Where a setting's problems go: all are reported at once (exit 78). */
  problems: ConfigProblem[];
  /** Whether CHAINVISOR_NOTIFY_EVENTS lets this notice's event through (the test message always passes). */
  wanted(event: string): boolean;
}

export interface AlertChannel<S extends ChannelSettingSpecs = ChannelSettingSpecs> {
  /** In log lines and `notify --test`'s report: `slack`. */
  readonly name: string;
  /** As people write it: `Slack`. */
  readonly title: string;
  readonly settings: S;
  /** The key of the setting whose value turns the channel on (empty: off); one of `settings` (defineChannel checks). */
  readonly switch: string;
  /** What `notify --help` says after the channel's title: the settings that turn it on, and what its test is when not a plain message. */
  readonly help: string;
  /**
   * The channel these values turn on (each value as written, or its default); undefined when they
   * leave it off, or when one cannot work (its problem added to `context.problems`).
   */
  parse(values: SettingValues<S>, context: ParseContext): Channel | undefined;
}

/** A channel's declaration with the literal types of its settings kept, so `Config` knows their keys. */
export function defineChannel<const S extends ChannelSettingSpecs>(channel: AlertChannel<S> & { readonly switch: keyof S }): AlertChannel<S> {
  return channel;
}
