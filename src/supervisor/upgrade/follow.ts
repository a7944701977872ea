/**
 * Step of the upgrade (compose.ts): the network followed after the switch (network-follow.ts). The
 * follows of one `run` remember each upgrade-applied, and the node started right after it is followed.
 */
import { rpcEndpoint } from '../../config/index.js';
import type { UpgradeRef } from '../../shared/events/index.js';
import { type Follow, type FollowOptions, startFollow } from './network-follow.js';

/**
 * The follows of one `run`: each upgrade-applied is remembered (its upgrade and when), and the node the
 * run loop starts right after it is followed on its RPC (a manual upgrade's first block is the height
 * + 1: its old binary committed the halt height).
 */
export class UpgradeFollows {
  private applied: { upgrade: UpgradeRef; at: number } | undefined;
  private manual = false;
  private follow: Follow | undefined;
  private readonly options: Pick<FollowOptions, 'events' | 'logger' | 'warnMs'> & { rpc: () => { address: string; source: string } };

  constructor(options: UpgradeFollows['options']) {
    this.options = options;
    options.events.on((e) => {
      if (e.event === 'upgrade-applied' && e.upgrade) {
        this.applied = { upgrade: e.upgrade, at: e.time };
        this.manual = false;
      }
    });
  }

  /** The upgrade just applied was a manual one. */
  manualApplied(): void {
    this.manual = true;
  }

  /** Follows the node just started after an upgrade; it never holds anything up. */
  start(): void {
    this.follow?.stop();
    const applied = this.applied;
    if (applied === undefined) return;
    const { events, logger, warnMs } = this.options;
    const rpc = this.options.rpc();
    const endpoint = rpcEndpoint(rpc.address);
    if (endpoint === undefined || (endpoint.kind === 'tcp' && endpoint.port === 0)) {
      // Port 0 (a test node) or no address: nothing to dial, and no false "stalled" for it.
      logger.info({ rpc: rpc.address, source: rpc.source }, "not following the network after the upgrade: the node's RPC address cannot be dialled");
      return;
    }
    const firstBlock = applied.upgrade.height + (this.manual ? 1 : 0);
    this.follow = startFollow({ upgrade: applied.upgrade, switchedAt: applied.at, firstBlock, rpcAddress: rpc.address, events, logger, warnMs });
  }

  /** Ends the follow under way (the node it follows stops). */
  stop(): void {
    this.follow?.stop();
  }
}
