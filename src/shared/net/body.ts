/**
 * Bodies chainvisor does not need, or needs only the start of (an error page, a redirect, a webhook
 * service's answer): at most `limit` bytes are read, then the connection is closed, however long the
 * other side goes on. A 200 with an endless body kept a webhook reading for as long as it was sent
 * (16 s of CPU in 20 idle seconds); the time spent is the caller's to bound (its signal, or the
 * client's body timeout).
 */
import type { Readable } from 'node:stream';

/** The first `limit` bytes of `body` (fewer when it ends first); the rest is never read. */
export async function readSome(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
  } finally {
    close(body);
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

/**
 * Reads and drops at most `limit` bytes of `body` (so a small answer leaves the connection reusable),
 * then closes it. Never fails: nothing depends on a body that is thrown away.
 */
export async function dropBody(body: Readable, limit = 64 * 1024): Promise<void> {
  if (limit <= 0) return close(body);
  await readSome(body, limit).catch(() => undefined);
}

function close(body: Readable): void {
  body.on('error', () => undefined);
  if (!body.destroyed) body.destroy();
}
