/**
 * The twin check's findings (issue #32): the report every event carries (`TwinCheckReport`), the error
 * of a key in use, and what a check that applies knows (the signing files, the address, the network's
 * memory), shared by the check before a start (./check.ts) and the watch over time (./watch.ts).
 */
import { ChainvisorError, isFsError } from '../shared/errors/index.js';
import type { TwinCheckReport } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import type { NodeSigning } from './sign-state.js';
import type { TwinScan } from './twin-scan.js';

/** What the check knows once it applies: the signing files, the address, the network's memory. */
export interface TwinContext {
  signing: NodeSigning;
  address: string;
  scan: TwinScan;
  config: { twinTimeout: number; twinWait: number };
  logger: Logger;
  /** Emits a finding (the report, and `during`: start, wait or running). */
  report(event: 'twin-checked' | 'key-in-use' | 'twin-unchecked', report: TwinCheckReport, data?: Record<string, unknown>): void;
  /** This home's last signed height, read now (0 for a home that never signed). */
  localHeight(): Promise<number>;
}

export function reportOf(state: TwinCheckReport['state'], fields: Partial<TwinCheckReport>): TwinCheckReport {
  return { state, checkedAt: new Date().toISOString(), rpc: null, fromHeight: null, toHeight: null, localHeight: null, ...fields };
}

/** CHAINVISOR_KEY_IN_USE: the address, the height seen, the RPC (redacted), this home's last signed height. */
export function keyInUseError(found: TwinCheckReport, stateFile: string, outcome: string): ChainvisorError {
  return new ChainvisorError(
    'CHAINVISOR_KEY_IN_USE',
    `this validator's key is in use on another machine: its address ${found.address ?? '?'} signed block ${found.seenHeight ?? '?'} on the network (seen through ${found.rpc ?? '?'}), above height ${found.localHeight ?? '?'}, the last this home signed (${stateFile}); ${outcome}`,
  );
}

/** A failure reading the local files while the node runs is reported, never a reason to stop it. */
export function isLocalReadFailure(error: unknown): boolean {
  return (error instanceof ChainvisorError && error.code === 'CHAINVISOR_SIGN_STATE_UNREADABLE') || isFsError(error);
}
