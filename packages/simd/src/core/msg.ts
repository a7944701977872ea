/**
 * Messages as every module sees them: their JSON form, what a message executor gets (state, events,
 * the routes of every message type) and how messages are routed by their type URL. The modules
 * (upgrade/, gov/) register routes of this shape; the application (chain/) runs them.
 */
import type { Overlay } from '../store/kv.js';
import type { SimLogger } from '../util/log.js';

/** A message as carried in a transaction or a proposal: its type URL under `@type`, then its fields. */
export interface AnyMsg {
  '@type': string;
  [field: string]: unknown;
}

export interface Event {
  type: string;
  attributes: Array<{ key: string; value: string }>;
}

export function event(type: string, attributes: Record<string, string>): Event {
  return { type, attributes: Object.entries(attributes).map(([key, value]) => ({ key, value })) };
}

export interface MsgContext {
  /** The application state; a branch that is dropped if the message (or its transaction) fails. */
  state: Overlay;
  height: number;
  /** Block time in milliseconds since the Unix epoch. */
  timeMs: number;
  log: SimLogger;
  events: Event[];
  /** Every message type the application knows (gov checks and runs a proposal's messages with it). */
  routes: Readonly<Record<string, MsgRoute>>;
}

export interface MsgRoute {
  /** The address that must sign a message of this type. */
  signer(msg: AnyMsg): string;
  execute(ctx: MsgContext, msg: AnyMsg): Promise<void>;
}

/** Looks up a message's route; unknown types fail like the SDK's message router. */
export function routeOf(ctx: Pick<MsgContext, 'routes'>, msg: AnyMsg): MsgRoute | undefined {
  return Object.hasOwn(ctx.routes, msg['@type']) ? ctx.routes[msg['@type']] : undefined;
}
