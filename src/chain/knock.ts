/**
 * The TCP knock: connect and hang up at once. A tenth of the CPU of a gRPC channel's attempt, and no
 * HTTP client loaded: the clients knock before their first call and after a refusal, so a node that is
 * down (or serves no gRPC) costs a refused connection per poll (issue: quiet at rest).
 */
import net from 'node:net';

import { asTransportError } from '../shared/net/index.js';

export type KnockTarget = { host: string; port: number } | { path: string };

/** Undefined when something listens, else why not (refused, no answer within `timeoutMs`). */
export function knockOn(target: KnockTarget, timeoutMs: number): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ ...target, timeout: timeoutMs });
    const done = (error: Error | undefined) => {
      socket.destroy();
      resolve(error);
    };
    socket.once('connect', () => done(undefined));
    socket.once('timeout', () => done(new Error(`no answer to a connection within ${timeoutMs} ms`)));
    // A name whose every address refuses gives an error with no message: asTransportError says each refusal.
    socket.once('error', (error) => done(asTransportError(error, timeoutMs) as Error));
  });
}
