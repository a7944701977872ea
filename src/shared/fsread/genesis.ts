/**
 * What chainvisor reads from the node's genesis file: the chain id (the sign guard's record key; the
 * rehearsal's scratch runs `<chain-id>-rehearsal`) and, for the rehearsal, the chain's bech32 address
 * prefix (for the scratch operator address). A genesis file can be
 * gigabytes, with `chain_id` after `app_state` and other `chain_id`s inside it (IBC clients): it is
 * streamed once with a small JSON scanner that knows the nesting depth, never parsed whole. A genesis
 * is opened as every file chainvisor reads (./open.ts): a FIFO or a device in its place (a link to
 * /dev/zero) is refused at once, not scanned for ever.
 */
import type { NotRead } from './open.js';
import { openReadStream, streamFailure } from './stream.js';

export interface GenesisFacts {
  chainId: string | undefined;
  /** The account prefix (`cosmos`), from the first bech32 address in the file; undefined when none. */
  prefix: string | undefined;
}

const addressPattern = /^([a-z]+?)(valoper|valcons|valoperpub|valconspub|pub)?1[02-9ac-hj-np-z]{38,58}$/;

export type GenesisRead = { status: 'ok'; facts: GenesisFacts } | NotRead;

/**
 * `chainIdOnly`: stop at the top-level `chain_id`, without looking for the prefix. `signal` stops the
 * scan (a stop signal need not wait for gigabytes to be read); it is then thrown.
 */
export async function readGenesisFacts(file: string, options: { chainIdOnly?: boolean; signal?: AbortSignal } = {}): Promise<GenesisRead> {
  const facts: GenesisFacts = { chainId: undefined, prefix: undefined };
  let depth = 0;
  let inString = false;
  let escaped = false;
  let text = '';
  let key: string | undefined; // the last key read at the top level
  let expectValue = false;
  const read = await openReadStream(file, { highWaterMark: 1 << 20, ...(options.signal ? { signal: options.signal } : {}) });
  if (read.status !== 'ok') return read;
  const { stream } = read;
  stream.setEncoding('utf8');
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i] as string;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') {
            inString = false;
            onString(text);
          } else if (text.length < 128) text += c;
          continue;
        }
        if (c === '"') {
          inString = true;
          text = '';
        } else if (c === '{' || c === '[') {
          depth += 1;
          expectValue = false;
        } else if (c === '}' || c === ']') depth -= 1;
        else if (c === ':') expectValue = true;
        else if (c === ',') expectValue = false;
      }
      if (facts.chainId !== undefined && (options.chainIdOnly === true || facts.prefix !== undefined)) break;
    }
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return streamFailure(error);
  } finally {
    stream.destroy();
  }
  return { status: 'ok', facts };

  function onString(value: string): void {
    if (depth === 1 && !expectValue) key = value;
    else if (depth === 1 && expectValue && key === 'chain_id') facts.chainId ??= value;
    if (facts.prefix === undefined) {
      const match = addressPattern.exec(value);
      if (match) facts.prefix = match[1];
    }
  }
}
