/**
 * Who is speaking, for every alert: the chain id and the node's name. Read once when `run` starts,
 * from the node's own files, small ones only (never the whole genesis, which can be gigabytes):
 *   moniker:  `$DAEMON_HOME/config/config.toml` `moniker`, else the host name;
 *   chain id: `$DAEMON_HOME/config/client.toml` `chain-id` (written by `init --chain-id`), else the
 *             top-level `chain_id` of `config/genesis.json` when it is at most 4 MiB, else unknown.
 * A file that cannot be read only costs the alert that detail.
 */
import os from 'node:os';
import path from 'node:path';

import { parse } from 'smol-toml';
import * as v from 'valibot';

import { readBounded } from '../shared/fsread/index.js';
import { parseJson } from '../shared/json.js';

export interface NodeFacts {
  /** The chain id; undefined when no small file names it. */
  chainId: string | undefined;
  /** The node's moniker, else the host name. */
  node: string;
  /** DAEMON_HOME: names the node in the PagerDuty dedup key when the chain id is unknown. */
  home: string;
}

export async function readNodeFacts(home: string, host = os.hostname()): Promise<NodeFacts> {
  const [config, client] = await Promise.all([readToml(path.join(home, 'config', 'config.toml')), readToml(path.join(home, 'config', 'client.toml'))]);
  const moniker = nonEmpty(config?.moniker);
  let chainId = nonEmpty(client?.['chain-id']);
  if (chainId === undefined) {
    const genesis = await readBounded(path.join(home, 'config', 'genesis.json'), 4 << 20);
    if (genesis.status === 'ok') {
      const parsed = parseJson(genesis.text, v.looseObject({ chain_id: v.string() }), { maxBytes: 4 << 20 });
      if (parsed.ok) chainId = nonEmpty(parsed.value.chain_id);
    }
  }
  return { chainId, node: moniker ?? host, home };
}

async function readToml(file: string): Promise<Record<string, unknown> | undefined> {
  const read = await readBounded(file, 1 << 20);
  if (read.status !== 'ok') return undefined;
  try {
    return parse(read.text);
  } catch {
    // A config file the node itself would refuse: the alert names the host instead.
    return undefined;
  }
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
