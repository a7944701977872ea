/**
 * `chainvisor check-plan --proposal <id>` (issue #45): the upgrade proposal read from the node while it
 * is voted — its plan, voting end, tally, and whether a cancellation could still pass before its height
 * (docs/governance.md#cancelled-moved-too-late-to-cancel) — before check-plan checks its Info as any
 * other. The block time behind the height's ETA is the running `run`'s, else measured over a few of
 * the node's blocks.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { ScheduledPlan } from '../../chain/index.js';
import { layoutFor } from '../../home/layout/index.js';
import { ChainvisorError } from '../../shared/errors/index.js';
import { type BlockTime, createBlockClock, describeEta, etaOf } from '../../shared/eta.js';
import { describeCancelWindow, endsIn } from '../../shared/events/index.js';
import { shownText } from '../../shared/json.js';
import { type CommandContext, writeLine } from '../command.js';
import { nodeAddresses } from '../node-addresses.js';
import { loadContextConfig } from '../settings.js';

/** How long the node's blocks are watched for a block time when no `run` has one. */
const measureMs = 12_000;

/** `id`: a decimal proposal id, as check-plan checked it. */
export async function readProposalPlan(ctx: CommandContext, id: string): Promise<ScheduledPlan> {
  const loaded = loadContextConfig(ctx);
  const layout = layoutFor(loaded.config);
  const [{ createChainReader, createGovReader }, { cancellableUntil, tooLateToCancel }, { readStatusFile }] = await Promise.all([
    import('../../chain/index.js'),
    import('../../supervisor/governance/index.js'),
    import('../../observe/status/index.js'),
  ]);
  const client = createChainReader({ addresses: await nodeAddresses(loaded, layout) });
  try {
    const gov = createGovReader(client);
    const proposals = await gov.upgradeProposals();
    const proposal = proposals.find((p) => p.id === String(BigInt(id)));
    if (proposal === undefined)
      throw new ChainvisorError(
        'CHAINVISOR_PROPOSAL_NOT_FOUND',
        `the node lists no upgrade proposal #${id} in its voting period (asked ${client.answeredBy() ?? client.describe()}; ${proposals.length} upgrade proposal(s) in voting${proposals.length === 0 ? '' : `: ${proposals.map((p) => `#${p.id}`).join(', ')}`})`,
      );
    const { plan } = proposal;
    const end = proposal.votingEndMs === null ? null : new Date(proposal.votingEndMs).toISOString();
    writeLine(
      ctx.stdout,
      `Proposal #${proposal.id} (gov ${proposal.gov}): upgrade ${shownText(plan.name, 100)} at height ${plan.height}; voting ${endsIn(end, Date.now())}${end === null ? '' : ` (${end})`}`,
    );
    const live = await readStatusFile(layout).catch(() => undefined);
    const blockTime = (live?.alive ? live.live.blockTime : undefined) ?? (await measureBlockTime(() => client.latestHeight()));
    const eta = etaOf(plan.height, blockTime);
    writeLine(ctx.stdout, `height ${plan.height}: ${eta === null ? 'no estimate (the block time is not known)' : describeEta(eta)}`);
    const periods = await gov.params();
    const window = tooLateToCancel({ height: plan.height, votingEndMs: proposal.votingEndMs }, periods, blockTime);
    if (window !== null) writeLine(ctx.stdout, `warning: ${describeCancelWindow(window)}`);
    else if (eta !== null && proposal.votingEndMs !== null) {
      const until = new Date(cancellableUntil(proposal.votingEndMs, periods)).toISOString();
      writeLine(
        ctx.stdout,
        `cancel window: a cancellation proposed after this vote could pass by ${until} (deposit period ${periods.depositPeriodMs / 1000} s + voting period ${periods.votingPeriodMs / 1000} s), before the height`,
      );
    }
    return plan;
  } finally {
    client.close();
  }
}

/** The node's block time over the blocks it commits within a few seconds; null when it commits none. */
async function measureBlockTime(height: () => Promise<number>): Promise<BlockTime | null> {
  const clock = createBlockClock();
  const until = Date.now() + measureMs;
  while (Date.now() < until) {
    clock.observe(await height(), Date.now());
    const known = clock.blockTime();
    if (known !== null && known.basedOnBlocks >= 3) return known;
    await sleep(500);
  }
  return clock.blockTime();
}
