/**
 * What describes one setting: its environment variable, kind, default, limits and meaning. It sits
 * below config (issue #33) because each alert channel's file (shared/alerts/) declares its own settings with
 * it, and config lists them from the registry.
 */
export type SettingKind =
  | 'absPath'
  | 'fileName'
  | 'bool'
  | 'duration'
  /** A duration, or `off` (read as 0). */
  | 'durationOrOff'
  | 'count'
  | 'bytes'
  | 'string'
  | 'enum'
  /** `off`, `any`, or a comma list of host names (normalized: lower case, no spaces). */
  | 'hostList'
  | 'grpcAddress'
  | 'rpcAddress'
  | 'rpcUrls'
  | 'sourceList';

interface SettingBase {
  /** Environment variable; the config-file key is its lower-cased form. */
  readonly env: string;
  readonly kind: SettingKind;
  readonly description: string;
  /** Required settings have no default. */
  readonly required?: true;
  /** Allowed values, for `enum`. */
  readonly values?: readonly string[];
  /** Shown instead of the default in docs when the default is derived from another setting. */
  readonly defaultDoc?: string;
  /**
   * The smallest value accepted (durations in ms; every duration is also capped at Node's timer limit), and
   * why a smaller one is refused: a value that would break every upgrade is refused by `config`, never met at the halt.
   */
  readonly min?: { readonly value: number; readonly why: string; readonly shown?: string; readonly zeroTurnsOff?: true };
  /**
   * The largest value the setting can mean (durations in ms), and why a larger one is refused. Without
   * it: 2^53 - 1 bytes or units (./values.ts), and for durations Node's timer limit (./load.ts).
   */
  readonly max?: { readonly value: number; readonly why: string; readonly shown?: string };
  /**
   * `chainvisor config` hides the value (`secret`), or shows its comma-separated URLs as a receiver's
   * (`urls`: scheme, host and at most a plain first path segment; shared/redact.ts).
   */
  readonly redact?: 'secret' | 'urls';
}

export interface SettingSpec extends SettingBase {
  /** Default as it would be written in the environment (`300ms`, `true`); absent when required or derived. */
  readonly default?: string;
}
