/**
 * What a restore asks of the double-sign guard: which signing state it keeps — the further ahead by
 * (height, round, step), never the one that went back (issue #28) — how its journal notes that state,
 * and the guard's record raised once the data is in place. guard/ implements it (`restoreSigning`) and
 * the command hands it in: home/ and guard/ share a floor, and neither imports the other.
 */
import type * as v from 'valibot';

/** A (height, round, step) of the validator's signing state. */
export interface SignPoint {
  height: bigint;
  round: number;
  step: number;
}

export type SignSide = SignPoint | 'missing';

/** The signing half of a restore plan. */
export interface SigningPlan {
  /** The state file, relative to the data folder; undefined when config.toml keeps it outside `data/`. */
  rel: string | undefined;
  replaced: SignSide;
  backup: SignSide;
  kept: 'replaced' | 'backup' | 'none';
  chainId: string;
  /** What the sign guard remembers for this chain when it is ahead of the kept state (the node would not start). */
  rememberedAhead: SignPoint | undefined;
}

/** The signing state kept, as the journal notes it for the sign guard's record. */
export interface KeptSigning {
  chainId: string;
  height: string;
  round: number;
  step: number;
  file: string;
}

export interface RestoreSigning {
  /** The signing state of the data (`dataDir`, its real path) and of `backup`; throws CHAINVISOR_SIGN_STATE_UNREADABLE when either cannot be read. */
  plan(dataDir: string, backup: string): Promise<SigningPlan>;
  /** The journal's `signed`, checked as the guard checks its record. */
  keptSchema: v.GenericSchema<KeptSigning>;
  /** Raises the guard's record to the kept state (again after a crash: no harm). */
  raise(kept: KeptSigning): Promise<void>;
}
