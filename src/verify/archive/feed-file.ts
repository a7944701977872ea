/**
 * A file on disk pushed through a streaming extractor (the tar or compressed one) as a download would
 * push it: 256 KiB at a time, stopping at the first refusal; a read error aborts the extractor, whose
 * `end()` then reports it.
 */
import type { Readable } from 'node:stream';

import { notReadError, openReadStream } from '../../shared/fsread/index.js';

export interface FedExtractor {
  write(chunk: Buffer): Promise<void>;
  readonly failed: boolean;
  abort(reason?: unknown): Promise<void>;
}

export async function feedFile(file: string, extractor: FedExtractor): Promise<void> {
  let input: Readable | undefined;
  try {
    const read = await openReadStream(file, { highWaterMark: 256 * 1024 });
    if (read.status !== 'ok') throw notReadError(file, read);
    input = read.stream;
    for await (const chunk of input as AsyncIterable<Buffer>) {
      await extractor.write(chunk);
      // Refused already: reading the rest cannot change the answer.
      if (extractor.failed) break;
    }
  } catch (error) {
    await extractor.abort(error);
  } finally {
    input?.destroy();
  }
}
