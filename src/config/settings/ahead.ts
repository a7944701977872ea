/** Work ahead of and after the halt: staging, the follow after the switch, rehearsals and the sign guard. */
import type { SettingSpec } from '../../shared/setting-spec.js';

export const aheadSettings = {
  // Staging before the halt: the plan read from the node while it runs.
  planPollInterval: {
    env: 'CHAINVISOR_PLAN_POLL_INTERVAL',
    kind: 'duration',
    default: '10s',
    min: {
      value: 100,
      zeroTurnsOff: true,
      why: 'a shorter interval asks the node (or dials a node that is down) many times a second; 0s turns plan watching off',
    },
    description:
      "How often `run` reads the scheduled upgrade plan and the latest height from the node's gRPC (`DAEMON_GRPC_ADDRESS`), to stage the binary before the halt; every 5 blocks instead on chains faster than that (at most once a second); until the node answers after a start, after 1, 2, 4 … seconds up to this interval (a node whose gRPC has not answered for a minute is reported once: nothing is staged then). `0s` turns plan watching off.",
  },
  stageWarnBlocks: {
    env: 'CHAINVISOR_STAGE_WARN_BLOCKS',
    kind: 'count',
    default: '100',
    description:
      'When a scheduled upgrade is this many blocks away or fewer and its binary is still not staged: a warning while its download is under way, an error (and `staging-failed`) when staging keeps failing or downloads are off and nobody ran `add-upgrade`.',
  },
  confirmWarn: {
    env: 'CHAINVISOR_CONFIRM_WARN',
    kind: 'duration',
    default: '10m',
    min: { value: 1000, why: 'a shorter wait calls every upgrade stalled before the network could have resumed' },
    description:
      'After an upgrade, how long chainvisor may wait for the network to commit the first block at or past the height before it warns that the upgrade is stalled (`upgrade-stalled`, status `stalled`); repeated every time this much more passes. chainvisor keeps following the network meanwhile (docs/monitoring.md, "After the upgrade").',
  },
  // Rehearsals (issue #19, docs/rehearsal.md).
  rehearsalDir: {
    env: 'CHAINVISOR_REHEARSAL_DIR',
    kind: 'absPath',
    defaultDoc: '`$DAEMON_HOME/cosmovisor`',
    description:
      "Where `rehearse` makes its scratch home (a hidden `.chainvisor-rehearsal-<pid>-<random>` folder, removed afterwards, and at the next start when chainvisor was killed). On the data's filesystem the data's tables are linked, not copied.",
  },
  rehearse: {
    env: 'CHAINVISOR_REHEARSE',
    kind: 'bool',
    default: 'false',
    description:
      '`run` rehearses each staged upgrade once (again when its binary changes), in the background at low CPU and I/O priority, one at a time; given up when the height is `CHAINVISOR_STAGE_WARN_BLOCKS` away or nearer, or free disk runs low. A failure is an error log, a `rehearsal-failed` webhook and a metric, never a refusal to upgrade.',
  },
  // The sign guard (issue #28, docs/backup.md).
  signGuard: {
    env: 'CHAINVISOR_SIGN_GUARD',
    kind: 'enum',
    default: 'on',
    values: ['on', 'off'],
    description:
      "Before every start of the node, refuse (exit 84) when `data/priv_validator_state.json` is behind the highest (height, round, step) this home's validator has signed (kept in `cosmovisor/.chainvisor/sign-state.json` per chain id): a signing state put back from a backup or snapshot would let the node sign a second vote for a height it already signed. Off by itself when `config.toml` names a remote signer (`priv_validator_laddr`). `off` is logged as a warning at every start.",
  },
} as const satisfies Record<string, SettingSpec>;
