/** The governance proposals read while they are voted (issue #45, docs/governance.md). */
import type { SettingSpec } from '../../shared/setting-spec.js';

export const governanceSettings = {
  proposalPollInterval: {
    env: 'CHAINVISOR_PROPOSAL_POLL_INTERVAL',
    kind: 'duration',
    default: '10m',
    min: {
      value: 1000,
      shown: '1s',
      zeroTurnsOff: true,
      why: 'proposals are voted for days: reading them more than once a second only costs the node; 0s turns reading them off',
    },
    description:
      "How often `run` reads the upgrade proposals in their voting period from the node (its gRPC, else its CometBFT RPC's `abci_query`), and once at start: each is listed in `status`, its Info checked without fetching anything, this validator's vote looked up (docs/governance.md). `0s` turns it off.",
  },
  stageProposals: {
    env: 'CHAINVISOR_STAGE_PROPOSALS',
    kind: 'hostList',
    default: 'off',
    description:
      "Whether a proposal's binary is downloaded while the proposal is still voted (with `DAEMON_ALLOW_DOWNLOAD_BINARIES=true` only): `off` (nothing is fetched before the vote passes), host names separated by commas (only URLs on those hosts, for example `github.com`), or `any` (public https hosts only: no loopback, private or link-local address). A fetched binary is verified before anything of it is unpacked, staged in `upgrades/<name>/` (never in place of another binary, never installed as a plan) and, with `CHAINVISOR_REHEARSE=true`, rehearsed; at most three proposals' binaries are fetched while their votes run. A problem is `proposal-problem` before the vote ends. Anyone with a deposit can make a proposal, and a download tells the URL's owner this node's address.",
  },
  voteReminder: {
    env: 'CHAINVISOR_VOTE_REMINDER',
    kind: 'durationOrOff',
    default: '24h',
    min: { value: 60_000, shown: '1m', zeroTurnsOff: true, why: 'a reminder less than a minute before the vote ends comes too late to vote' },
    description:
      'When this validator has not voted on an upgrade proposal this long before its voting period ends: `vote-missing` to the chat channels and webhooks (once per proposal), and `status` says "not voted, ends in …". `off` (or `0s`) turns the reminder off. chainvisor never signs or sends a vote.',
  },
} as const satisfies Record<string, SettingSpec>;
