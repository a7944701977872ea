/** The smoke test of a downloaded binary, and the restart policy for a node that exits with no upgrade. */
import type { SettingSpec } from '../../shared/setting-spec.js';

export const restartSettings = {
  smokeTest: {
    env: 'CHAINVISOR_SMOKE_TEST',
    kind: 'bool',
    default: 'false',
    description: 'After a download, run `<binary> version` (10 s limit) and refuse the binary if it fails.',
  },
  // Restart policy for a node that exits with no upgrade (issue: manual upgrades and restart policy).
  restartOnFailure: {
    env: 'CHAINVISOR_RESTART_ON_FAILURE',
    kind: 'bool',
    default: 'false',
    description:
      'Restart a node that fails (non-zero status or a signal) with no upgrade to apply, with exponential backoff; if false, exit with its status as cosmovisor does.',
  },
  restartMax: {
    env: 'CHAINVISOR_RESTART_MAX',
    kind: 'count',
    default: '5',
    description: "Most restarts in a row; the count starts over once the node has run for 10 minutes. Past it chainvisor exits with the node's status.",
  },
  restartBackoff: {
    env: 'CHAINVISOR_RESTART_BACKOFF',
    kind: 'duration',
    default: '500ms',
    description: 'Wait before the first restart; doubled for each further restart, up to 60 s (or this wait, when it is longer).',
  },
} as const satisfies Record<string, SettingSpec>;
