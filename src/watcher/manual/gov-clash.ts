/**
 * A governance plan at the height of a queued manual upgrade: the node halts for the governance plan
 * before committing that block, so the manual entry never runs there. Reported once per clash.
 */
import { type ChainClient, ChainUnavailableError } from '../../chain/index.js';
import type { Logger } from '../../shared/log.js';
import type { ManualPlan } from './file.js';

export interface GovernanceClashCheck {
  chain: ChainClient;
  /** The queue as it is at each look (a removal can land while the chain is asked). */
  queued(): readonly ManualPlan[];
  batchFile: string;
  logger: Logger;
  /** Logs once per distinct `key`. */
  report(key: string, log: () => void): void;
}

/** Asks the chain for its plan and reports a queued entry at its height; a node not answering is no clash. */
export async function checkGovernanceClash({ chain, queued, batchFile, logger, report }: GovernanceClashCheck): Promise<void> {
  if (queued().length === 0) return;
  let gov;
  try {
    gov = await chain.currentPlan();
  } catch (error) {
    if (error instanceof ChainUnavailableError) return;
    throw error;
  }
  const clash = gov && queued().find((p) => p.height === gov.height);
  if (!gov || !clash) return;
  report(`gov:${gov.name}@${gov.height}:${clash.name}`, () =>
    logger.error(
      { code: 'CHAINVISOR_BATCH_GOV_CLASH', upgrade: clash.name, height: clash.height, governance: gov.name },
      'governance plans upgrade "%s" at height %d, where the manual upgrade "%s" is queued: the node halts for the governance plan before committing that block; remove the manual entry from %s',
      gov.name,
      gov.height,
      clash.name,
      batchFile,
    ),
  );
}
