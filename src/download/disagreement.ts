/**
 * `checksum-disagreement` (issue #34), sent from here only, wherever the disagreement is found: while
 * staging, days ahead (once per plan, `near` as the height comes), or first at the height, when the
 * upgrade then fails with CHAINVISOR_CHECKSUM_DISAGREEMENT. Its text and `data.sources` name each source
 * and its value. Recognised by its code, not its class: the sources' module loads the verifier and the
 * archive readers, which an idle run must not (test/release/at-rest.test.ts).
 */
import type { EventBus, UpgradeRef } from '../shared/events/index.js';
import type { ChecksumDisagreementError } from './sources/index.js';

export const isDisagreement = (error: unknown): error is ChecksumDisagreementError =>
  (error as { code?: unknown } | null)?.code === 'CHAINVISOR_CHECKSUM_DISAGREEMENT';

export interface DisagreementFound {
  /** Blocks left to the height when known (0 at the height). */
  blocksLeft: number | undefined;
  /** The height is CHAINVISOR_STAGE_WARN_BLOCKS away or nearer (PagerDuty `critical`). */
  near: boolean;
}

export function sendDisagreement(events: EventBus, upgrade: UpgradeRef, error: ChecksumDisagreementError, found: DisagreementFound): void {
  const { blocksLeft, near } = found;
  events.emit('checksum-disagreement', {
    upgrade,
    text: error.message,
    data: { sources: error.values, platform: error.platform, near, ...(blocksLeft === undefined ? {} : { blocksLeft }), hint: error.hint },
  });
}
