/**
 * A call to a service or method the gRPC server does not serve fails with UNIMPLEMENTED, as everywhere;
 * grpc-go (what a Cosmos node runs) words it `unknown service <s>` or `unknown method <m> for service <s>`
 * where grpc-js says `The server does not implement the method <path>`. This rewrites grpc-js's words to
 * grpc-go's. It relies on two internals of grpc-js's Server (its handler map and the function that
 * sends a call's error); if they change, grpc-js's own words are left as they are.
 */
import type { Server } from '@grpc/grpc-js';

interface ServerInternals {
  handlers?: Map<string, unknown>;
  _respondWithError?: (error: { code?: number; details?: string }, ...rest: unknown[]) => void;
}

const grpcJsWords = 'The server does not implement the method ';

export function grpcGoUnknownMethodWords(server: Server): void {
  const internals = server as unknown as ServerInternals;
  const respond = internals._respondWithError;
  if (typeof respond !== 'function' || !(internals.handlers instanceof Map)) return;
  internals._respondWithError = function (this: ServerInternals, error, ...rest) {
    if (typeof error.details === 'string' && error.details.startsWith(grpcJsWords)) {
      error = { ...error, details: grpcGoWords(error.details.slice(grpcJsWords.length), internals.handlers as Map<string, unknown>) };
    }
    respond.call(this, error, ...rest);
  };
}

function grpcGoWords(path: string, handlers: Map<string, unknown>): string {
  const slash = path.lastIndexOf('/');
  if (!path.startsWith('/') || slash <= 0) return `malformed method name: ${JSON.stringify(path)}`;
  const service = path.slice(1, slash);
  const method = path.slice(slash + 1);
  const known = [...handlers.keys()].some((key) => key.startsWith(`/${service}/`));
  return known ? `unknown method ${method} for service ${service}` : `unknown service ${service}`;
}
