/**
 * Who is speaking, for every alert: the chain id and the node's name. The alerts read no file: the
 * caller hands them in (observe/node-identity.ts reads them once when `run` starts, from the node's
 * files as chain/node-files.ts reads them, so the chain id is the one the sign guard and the metrics
 * name). A file that cannot be read only costs the alert that detail.
 */
export interface NodeFacts {
  /** The chain id; undefined when the node's files do not name it. */
  chainId: string | undefined;
  /** The node's moniker, else the host name. */
  node: string;
  /** DAEMON_HOME: names the node in the PagerDuty dedup key when the chain id is unknown. */
  home: string;
}
