/**
 * The node lives outside DAEMON_HOME (issue #43, docs/cosmovisor.md#the-nodes-home): the data of
 * `home-mismatch`, the status document's `homeMismatch` and the webhook's field of that name;
 * describeHomeMismatch says it in one line (the event's text, `chainvisor status`). A public
 * interface: add, never rename.
 */
export interface HomeMismatch {
  /** The node's home: its `--home`, or the folder holding the data folder its open files show. */
  nodeHome: string;
  /** DAEMON_HOME (its real path). */
  daemonHome: string;
  /** `flag`: the node's `--home`; `open-files`: the files the running node holds open (Linux). */
  seen: 'flag' | 'open-files';
  /** The open file that showed it (`open-files` only), else null. */
  file: string | null;
  /** The node has a local validator key there: it was not started, or was stopped (exit 84). */
  refused: boolean;
}

/** What does not work while the node lives elsewhere. */
const consequences =
  "chainvisor watches DAEMON_HOME's data/upgrade-info.json and signing state, so upgrades are not applied (the node halts at the height and nothing switches it), the sign guard and the twin check read the wrong files, and backups copy the wrong data";

export function describeHomeMismatch(m: HomeMismatch): string {
  const how = m.seen === 'flag' ? 'its --home flag' : `the files it holds open (${m.file ?? '?'})`;
  const end = m.refused ? '; it has a local validator key there: the node was not started, or was stopped' : '';
  return `the node's home is ${m.nodeHome} (seen by ${how}), not DAEMON_HOME ${m.daemonHome}: ${consequences}${end}`;
}
