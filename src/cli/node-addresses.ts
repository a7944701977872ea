/**
 * Where a one-shot command (`prepare-upgrade`, `rehearse`, `add-upgrade --upgrade-height`, `config`)
 * finds the node: the operator's settings; else where the node `chainvisor run` started listens, as
 * run published it while that node runs (its flags, which these commands never see); else the node's
 * config.toml and app.toml.
 */
import type { ChainAddresses } from '../chain/index.js';
import type { LoadedConfig } from '../config/index.js';
import type { Layout } from '../home/layout/index.js';

export async function nodeAddresses(loaded: LoadedConfig, layout: Layout): Promise<ChainAddresses> {
  // Loaded when used: the chain module brings the gRPC client, which other commands never evaluate.
  const [{ addressesFor }, { runningNodeAddresses }] = await Promise.all([import('../chain/index.js'), import('../guard/index.js')]);
  return addressesFor(loaded, undefined, await runningNodeAddresses(layout));
}
