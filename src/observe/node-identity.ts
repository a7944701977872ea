/**
 * Which chain and which node a chainvisor speaks for: the facts every alert names (shared/alerts/node-facts.ts)
 * and `chainvisor_node_info` (issue #35), by which a fleet of thirty nodes on twelve chains groups and
 * joins its series. Both from one reading of the node's files (chain/node-files.ts): the chain id the
 * sign guard keys its record by (its genesis file's, streamed: a genesis can be gigabytes), else
 * client.toml's `chain-id`; the node is the moniker, else the host name. Read once in the background:
 * nothing waits for it.
 */
import os from 'node:os';

import { readNodeNames } from '../chain/index.js';
import type { NodeFacts } from '../shared/alerts/index.js';
import type { NodeIdentity } from './metrics.js';

/** `signal` stops a long genesis scan: the chain id then comes from client.toml, if it names one. */
export async function readNodeFacts(home: string, host = os.hostname(), signal?: AbortSignal): Promise<NodeFacts> {
  const names = await readNodeNames(home, signal);
  return { chainId: names.chainId, node: names.moniker ?? host, home };
}

/** The node's info series: the facts the alerts name, with `unknown` for a chain id no file names. */
export function identityOf(facts: NodeFacts, daemonName: string): NodeIdentity {
  return { chainId: facts.chainId ?? 'unknown', node: facts.node, daemonName };
}
