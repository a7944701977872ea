/**
 * The TCP knock: connect and hang up at once. A tenth of the CPU of a gRPC channel's attempt, and no
 * HTTP client loaded: the clients knock before their first call and after a refusal, so a node that is
 * down (or serves no gRPC) costs a refused connection per poll (issue: quiet at rest).
 */
import net from 'node:net';

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
    socket.once('error', (error) => done(described(error)));
  });
}

/**
 * A name with several addresses that all refuse (`localhost`: ::1 and 127.0.0.1) fails with an
 * AggregateError whose message is empty: its attempts' messages are said instead.
 */
function described(error: Error): Error {
  if (error.message !== '' || !(error instanceof AggregateError)) return error;
  const attempts = [...new Set(error.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))))];
  const code = (error as { code?: unknown }).code;
  return Object.assign(new Error(attempts.length > 0 ? attempts.join('; ') : `connection failed (${String(code ?? 'no reason given')})`), {
    code,
    cause: error,
  });
}
