/**
 * Which upgrade `rehearse` rehearses when none is named: the plan scheduled on chain, read from the
 * node as staging reads it (gRPC, else its CometBFT RPC), or else the first manual upgrade queued in upgrade-info.json.batch;
 * when the node could not be asked and nothing is queued, the one upgrade staged in `upgrades/` (a
 * binary never switched to, its plan not cancelled), if there is exactly one — said in the log.
 */
import { createChainReader } from '../../chain/index.js';
import type { LoadedConfig } from '../../config/index.js';
import type { Layout } from '../../home/layout/index.js';
import { readHome } from '../../observe/status/index.js';
import { ChainvisorError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/log.js';
import { readQueued } from '../../watcher/manual/index.js';
import { nodeAddresses } from '../node-addresses.js';

export async function pickUpgrade(loaded: LoadedConfig, layout: Layout, logger: Logger): Promise<string> {
  const { config } = loaded;
  let unanswered = false;
  const client = createChainReader({ addresses: await nodeAddresses(loaded, layout), timeoutMs: 3000 });
  let asked: string;
  try {
    const plan = await client.currentPlan();
    if (plan !== null) return plan.name;
    asked = `no plan is scheduled on chain (asked ${client.answeredBy() ?? client.describe()})`;
  } catch (error) {
    unanswered = true;
    asked = `the node did not answer (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    client.close();
  }
  const queued = await readQueued(layout);
  if (queued[0] !== undefined) return queued[0].name;
  if (unanswered) {
    // A binary kept from a plan cancelled on chain is no upgrade to come.
    const staged = (await readHome({ layout, backupDir: config.dataBackupDir })).staged.filter((s) => s.planned !== false);
    if (staged.length === 1 && staged[0] !== undefined) {
      logger.warn({ upgrade: staged[0].name }, `${asked}; rehearsing the one staged upgrade, "${staged[0].name}"`);
      return staged[0].name;
    }
  }
  throw new ChainvisorError('CHAINVISOR_REHEARSAL_NO_UPGRADE', `nothing to rehearse: ${asked} and no manual upgrade is queued`);
}
