/** The process exit codes of the `chainvisor` command: one per kind of failure an operator fixes differently. */

/** Exit codes of the `chainvisor` command, documented in the README. */
export const ExitCode = {
  ok: 0,
  /** An unexpected failure: a bug. The CLI prints the stack. */
  internal: 1,
  /** The command line itself is wrong (unknown command, missing argument). */
  usage: 64,
  /** The configuration (environment or config file) is invalid. */
  config: 78,
  /** An upgrade could not be applied: binary missing, download or verification refused, switch failed. */
  upgradeFailed: 79,
  /** The custom pre-upgrade script or the new binary's `pre-upgrade` failed. */
  preUpgradeFailed: 80,
  /** The data backup before an upgrade failed (for example a full disk). */
  backupFailed: 81,
  /** Another chainvisor already supervises this home (or a node it left could not be stopped). */
  homeLocked: 82,
  /** `rehearse`: the upgrade failed on the copy of this node's state (issue #19). */
  rehearsalFailed: 83,
  /**
   * Started, the node could double-sign: its signing state is behind what it has signed (issue #28), or
   * another machine signs with its key (issue #32). The node is not started, or is stopped.
   */
  doubleSignRisk: 84,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
