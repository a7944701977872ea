/** Where an upgrade's binary may come from besides the plan's Info, and how many must agree on its checksum (issue #34, docs/sources.md). */
import type { SettingSpec } from '../../shared/setting-spec.js';

export const sourceSettings = {
  upgradeSources: {
    env: 'CHAINVISOR_UPGRADE_SOURCES',
    kind: 'sourceList',
    default: 'plan',
    description:
      "Where an upgrade's binary is looked up, in order, comma-separated: `plan` (the Info's `binaries`), `registry` (the document at `CHAINVISOR_REGISTRY_URL`), `chain-registry` (a chain registry `versions.json` at `CHAINVISOR_CHAIN_REGISTRY_URL`). The first with a URL for this host's platform (or `any`) gives the URL; the others give checksums and, with the same checksum, a mirror tried when that download fails (docs/sources.md).",
  },
  registryUrl: {
    env: 'CHAINVISOR_REGISTRY_URL',
    kind: 'string',
    default: '',
    redact: 'urls',
    description:
      'The operator\'s registry, `{"upgrades": [{"name": "v2", "height": 1234, "binaries": {"linux/amd64": "https://…?checksum=sha256:…"}}]}` (https; http and `file://` as the URL policy allows); required when `CHAINVISOR_UPGRADE_SOURCES` names `registry`.',
  },
  chainRegistryUrl: {
    env: 'CHAINVISOR_CHAIN_REGISTRY_URL',
    kind: 'string',
    default: '',
    redact: 'urls',
    description:
      "A chain registry `versions.json` (cosmos/chain-registry, the chain's own folder); required when `CHAINVISOR_UPGRADE_SOURCES` names `chain-registry`.",
  },
  checksumQuorum: {
    env: 'CHAINVISOR_CHECKSUM_QUORUM',
    kind: 'count',
    default: '1',
    min: {
      value: 1,
      why: 'a binary is installed only with a checksum a source gave (or none, with DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false and a quorum of 1)',
    },
    description:
      "How many sources must give the same checksum for this platform's binary before it is staged or installed; a source without one does not count, and two sources that differ stop the upgrade (`CHAINVISOR_CHECKSUM_DISAGREEMENT`) whatever the quorum. At most the number of sources.",
  },
} as const satisfies Record<string, SettingSpec>;
