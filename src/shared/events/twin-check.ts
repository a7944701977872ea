/**
 * What the twin check (issue #32, docs/double-sign.md) last found: the data of `twin-checked`,
 * `key-in-use` and `twin-unchecked`, the status document's `twinCheck`, and the top-level fields of
 * their webhooks; describeTwinCheck says it in one line (`chainvisor status`). A public interface:
 * add, never rename.
 */
export interface TwinCheckReport {
  /**
   * `clear`: the network's commits show no signature of this validator above its own signing state;
   * `key-in-use`: they do (another machine signs with its key); `unchecked`: the network could not be
   * asked; `off`: the check does not apply (`reason` says why).
   */
  state: 'clear' | 'key-in-use' | 'unchecked' | 'off';
  /** When (ISO 8601). */
  checkedAt: string;
  /** The network RPC read, redacted (no credentials, no query string); null when none was. */
  rpc: string | null;
  /** The heights whose commits were read (both included); null when none were. */
  fromHeight: number | null;
  toHeight: number | null;
  /** The highest height at which this validator's signature was seen on the network, when it was. */
  seenHeight?: number;
  /** This home's last signed height (`priv_validator_state.json`), read after the network; null when not read. */
  localHeight: number | null;
  /** The validator's address (upper-case hex), when known. */
  address?: string;
  /** Why the check is off or unchecked. */
  reason?: string;
}

/** The events whose data is a `TwinCheckReport`. */
export const twinCheckEvents: readonly string[] = ['twin-checked', 'key-in-use', 'twin-unchecked'];

/** One line: `clear: heights 1200–1249 on https://rpc.example.com/ read, this validator last signed 1251 here (seen up to 1249)`. */
export function describeTwinCheck(c: TwinCheckReport): string {
  const heights = c.fromHeight === null || c.toHeight === null ? '' : `heights ${c.fromHeight}–${c.toHeight}`;
  const where = c.rpc === null ? '' : ` on ${c.rpc}`;
  const local = c.localHeight === null ? '' : `; this home last signed height ${c.localHeight}`;
  switch (c.state) {
    case 'clear':
      return `clear: ${heights || 'the network'}${where} read, no signature of this validator above this home's${local}${c.seenHeight === undefined ? '' : ` (its own seen up to ${c.seenHeight})`}`;
    case 'key-in-use':
      return `KEY IN USE elsewhere: this validator${c.address === undefined ? '' : ` (${c.address})`} signed height ${c.seenHeight ?? '?'}${where}${local}`;
    case 'unchecked':
      return `unchecked: ${c.reason ?? 'the network could not be asked'}`;
    case 'off':
      return `off: ${c.reason ?? 'the check does not apply'}`;
  }
}
