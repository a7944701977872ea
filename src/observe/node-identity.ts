/**
 * Which chain and which node a chainvisor speaks for, for `chainvisor_node_info` (issue #35): a fleet
 * of thirty nodes on twelve chains groups and joins its series by it. The chain id is the genesis
 * file's top-level `chain_id` (streamed: a genesis can be gigabytes, shared/fsread/genesis.ts), else
 * the one the alerts read (client.toml); the node is the moniker the alerts already name
 * (alerts/node-facts.ts). Read once in the background: nothing waits for it.
 */
import path from 'node:path';

import { readNodeFacts } from '../alerts/index.js';
import { readGenesisFacts } from '../shared/fsread/index.js';
import type { NodeIdentity } from './metrics.js';

export async function readNodeIdentity(home: string, daemonName: string, signal?: AbortSignal): Promise<NodeIdentity> {
  const [facts, genesis] = await Promise.all([
    readNodeFacts(home),
    readGenesisFacts(path.join(home, 'config', 'genesis.json'), { chainIdOnly: true, ...(signal ? { signal } : {}) }).catch(() => undefined),
  ]);
  const chainId = (genesis?.status === 'ok' ? genesis.facts.chainId : undefined) ?? facts.chainId ?? 'unknown';
  return { chainId, node: facts.node, daemonName };
}
