/**
 * Where a one-shot command (`prepare-upgrade`, `rehearse`, `add-upgrade --upgrade-height`, `config`)
 * finds the node: the operator's settings; else where the node `chainvisor run` started listens, as
 * run published it while that node runs (its flags, which these commands never see); else the node's
 * config.toml and app.toml.
 */
import { addressesFor, type ChainAddresses } from '../chain/index.js';
import type { LoadedConfig } from '../config/index.js';
import { runningNodeAddresses } from '../guard/index.js';
import type { Layout } from '../home/layout/index.js';

export async function nodeAddresses(loaded: LoadedConfig, layout: Layout): Promise<ChainAddresses> {
  return addressesFor(loaded, undefined, await runningNodeAddresses(layout));
}
