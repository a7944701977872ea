/**
 * Which upgrade `rehearse` rehearses when none is named: the plan scheduled on chain, read from the
 * node's gRPC as staging reads it, or else the first manual upgrade queued in upgrade-info.json.batch.
 */
import { createChainClient } from '../../chain/index.js';
import type { Config } from '../../config/index.js';
import { ChainvisorError } from '../../errors/index.js';
import type { Layout } from '../../layout/index.js';
import { readQueued } from '../../manual/index.js';

export async function pickUpgrade(config: Config, layout: Layout): Promise<string> {
  const client = createChainClient({ address: config.grpcAddress, timeoutMs: 3000 });
  let asked: string;
  try {
    const plan = await client.currentPlan();
    if (plan !== null) return plan.name;
    asked = `no plan is scheduled on chain (asked ${config.grpcAddress})`;
  } catch (error) {
    asked = `the node's gRPC at ${config.grpcAddress} did not answer (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    client.close();
  }
  const queued = await readQueued(layout);
  if (queued[0] !== undefined) return queued[0].name;
  throw new ChainvisorError('CHAINVISOR_REHEARSAL_NO_UPGRADE', `nothing to rehearse: ${asked} and no manual upgrade is queued`);
}
