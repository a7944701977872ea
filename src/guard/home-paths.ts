/**
 * The paths of a home the guard keeps safe: only what it reads and writes. The home's Layout
 * (home/layout/) has them all; guard/ sits on the floor beside home/ and imports nothing of it.
 */
export interface HomePaths {
  /** $DAEMON_HOME: its config.toml names the signing files; its real path names the lock. */
  home: string;
  /** `$DAEMON_HOME/data`: where the node's signing state is by default. */
  dataDir: string;
  /** `$DAEMON_HOME/cosmovisor/.chainvisor`: the lock, the node record and the sign record. */
  stateDir: string;
}
