/**
 * What stops an upgrade when its sources are asked (issue #34): two checksums that differ, too few that
 * agree, or no source with a URL for this host. Each names every source and what it gave, so the
 * operator knows which one to correct; all fail the upgrade with exit 79.
 */
import { UpgradeError } from '../../shared/errors/index.js';

export interface SourceChecksum {
  source: string;
  /** `sha256:<hex>`. */
  checksum: string;
}

/** Two sources give different checksums for this platform's binary: nothing is installed from either. */
export class ChecksumDisagreementError extends UpgradeError {
  declare readonly platform: string;
  declare readonly values: readonly SourceChecksum[];

  constructor(upgrade: string, platform: string, values: readonly SourceChecksum[]) {
    super(
      'ChecksumDisagreementError',
      'CHAINVISOR_CHECKSUM_DISAGREEMENT',
      `the sources of upgrade "${upgrade}" disagree on the checksum of the ${platform} binary: ${values.map((v) => `${v.source} gives ${v.checksum}`).join('; ')}; nothing is installed from either`,
      {},
      { platform, values },
    );
  }
}

/** Fewer sources than CHAINVISOR_CHECKSUM_QUORUM give the same checksum, and none disagree. */
export class QuorumNotMetError extends UpgradeError {
  declare readonly quorum: number;
  declare readonly found: readonly string[];

  constructor(upgrade: string, platform: string, quorum: number, agreeing: readonly SourceChecksum[], found: readonly string[]) {
    const agreed =
      agreeing.length === 0 ? 'no source gives a checksum' : `${agreeing.length} give ${agreeing[0]?.checksum} (${agreeing.map((a) => a.source).join(', ')})`;
    super(
      'QuorumNotMetError',
      'CHAINVISOR_CHECKSUM_QUORUM_NOT_MET',
      `CHAINVISOR_CHECKSUM_QUORUM is ${quorum} but for the ${platform} binary of upgrade "${upgrade}" ${agreed}; found: ${found.join('; ')}`,
      {},
      { quorum, found },
    );
  }
}

/** No source has a usable URL for this host's platform or `any`. */
export class NoSourceBinaryError extends UpgradeError {
  declare readonly platform: string;
  declare readonly found: readonly string[];

  constructor(upgrade: string, platform: string, found: readonly string[]) {
    super(
      'NoSourceBinaryError',
      'CHAINVISOR_NO_SOURCE_BINARY',
      `no source of upgrade "${upgrade}" has a binary for ${platform} or "any": ${found.join('; ')}`,
      {},
      { platform, found },
    );
  }
}
