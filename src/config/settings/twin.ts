/** The twin check (issue #32, docs/double-sign.md): the network's view of this validator's key. */
import type { SettingSpec } from '../../shared/setting-spec.js';

export const twinSettings = {
  networkRpc: {
    env: 'CHAINVISOR_NETWORK_RPC',
    kind: 'rpcUrls',
    default: '',
    redact: 'urls',
    description:
      "One or more CometBFT RPC URLs of other nodes of this chain (your sentries, a public RPC), comma-separated (`https://rpc.example.com,http://10.0.0.5:26657`; `tcp://` is read as `http://`). Before every start of a validator with a local key, chainvisor reads the last `CHAINVISOR_TWIN_BLOCKS` commits there and refuses to start (exit 84) when this validator's address signed a height above its own `priv_validator_state.json`: the key runs on another machine. While the node runs, the newest commit is read every block (at most once a second, at least every 10 s), and such a signature stops the node (exit 84, never restarted). Through `HTTPS_PROXY`/`HTTP_PROXY` and the host's CAs, as downloads; credentials in a URL are sent as Basic authorization and never shown. A URL that does not parse, or an RPC of another chain id, is refused (exit 78). Empty: no twin check, and one warning per start for a validator with a local key.",
  },
  twinCheck: {
    env: 'CHAINVISOR_TWIN_CHECK',
    kind: 'enum',
    default: 'on',
    values: ['on', 'require', 'off'],
    description:
      '`on`: when no network RPC answers within `CHAINVISOR_TWIN_TIMEOUT`, warn (`twin-unchecked`) and start. `require`: do not start then (exit 84, `CHAINVISOR_TWIN_UNCHECKED`). `off`: no check, a warning at every start. Off by itself with a remote signer (`priv_validator_laddr`), without `config/priv_validator_key.json`, and for an address not in the validator set.',
  },
  twinBlocks: {
    env: 'CHAINVISOR_TWIN_BLOCKS',
    kind: 'count',
    default: '50',
    min: { value: 1, why: 'the check reads at least the newest commit' },
    max: { value: 1000, why: 'each block is one request to the network RPC before the node may start' },
    description: 'How many of the newest commits the check before a start reads on the network RPC.',
  },
  twinTimeout: {
    env: 'CHAINVISOR_TWIN_TIMEOUT',
    kind: 'duration',
    default: '3s',
    min: { value: 100, why: 'a shorter limit leaves no time for an RPC beyond this host to answer' },
    max: { value: 60_000, shown: '1m', why: 'the check holds back the start of the node: a start never waits longer than this for it' },
    description:
      'The longest the check before a start may take; the start is never delayed by more (the wait of `CHAINVISOR_TWIN_WAIT` aside). Also the deadline of each reading while the node runs, the whole body of every answer included; 3 readings in a row that miss it are a `twin-unchecked` warning.',
  },
  twinWait: {
    env: 'CHAINVISOR_TWIN_WAIT',
    kind: 'count',
    default: '0',
    max: { value: 1000, why: 'the node waits that many blocks before its first start' },
    description:
      'Before the first start of a `run` (not at a restart or after an upgrade), watch this many new blocks on the network RPC first and refuse (exit 84) if this validator signs one of them: a twin started at the same moment as this node. A network whose height does not move for 30 s (a halted chain, which may be waiting for this very validator) ends the wait with a warning.',
  },
} as const satisfies Record<string, SettingSpec>;
