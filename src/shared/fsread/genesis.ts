/**
 * What chainvisor reads from the node's genesis file: the chain id (the sign guard's record key; the
 * rehearsal's scratch runs `<chain-id>-rehearsal`) and, for the rehearsal, the chain's bech32 address
 * prefix (for the scratch operator address). A genesis file can be
 * gigabytes, with `chain_id` after `app_state` and other `chain_id`s inside it (IBC clients): it is
 * streamed once with a small JSON scanner that knows the nesting depth, never parsed whole.
 */
import { createReadStream } from 'node:fs';

export interface GenesisFacts {
  chainId: string | undefined;
  /** The account prefix (`cosmos`), from the first bech32 address in the file; undefined when none. */
  prefix: string | undefined;
}

const addressPattern = /^([a-z]+?)(valoper|valcons|valoperpub|valconspub|pub)?1[02-9ac-hj-np-z]{38,58}$/;

/** `chainIdOnly`: stop at the top-level `chain_id`, without looking for the prefix. */
export async function readGenesisFacts(file: string, options: { chainIdOnly?: boolean } = {}): Promise<GenesisFacts> {
  const facts: GenesisFacts = { chainId: undefined, prefix: undefined };
  let depth = 0;
  let inString = false;
  let escaped = false;
  let text = '';
  let key: string | undefined; // the last key read at the top level
  let expectValue = false;
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
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
  } finally {
    stream.destroy();
  }
  return facts;

  function onString(value: string): void {
    if (depth === 1 && !expectValue) key = value;
    else if (depth === 1 && expectValue && key === 'chain_id') facts.chainId ??= value;
    if (facts.prefix === undefined) {
      const match = addressPattern.exec(value);
      if (match) facts.prefix = match[1];
    }
  }
}
