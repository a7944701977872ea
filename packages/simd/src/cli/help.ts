/** Help texts, by command path. `{bin}` is replaced by the binary's name. */
export const helpTexts: Readonly<Record<string, string>> = {
  '': `{bin} — simulated Cosmos-SDK node ({version}) implementing the upgrade module

Usage:
  {bin} [command]

Available Commands:
  init          Write the genesis configuration under --home
  start         Run the node: produce blocks, serve RPC, gRPC and REST
  in-place-testnet  Create and start a testnet from current local state
  tx            Transactions: upgrade proposals, gov votes (weighted too) and deposits
  query         Queries: upgrade plan, applied upgrades, module versions, gov proposals
  status        Query remote node for status
  version       Print this binary's version (--long for details)
  pre-upgrade   Hook run by the supervisor before starting this binary (exit code from SIMD_PRE_UPGRADE_EXIT)
  keys          The simulated keyring (validator, alice, bob)

Use "{bin} [command] --help" for more information about a command.
`,
  init: `Write <home>/config/genesis.json, config.toml (the moniker, [rpc] laddr = "tcp://127.0.0.1:26657")
and app.toml ([grpc] enable = true, address = "localhost:9090"; [api] enable = false,
address = "tcp://localhost:1317"; keys already in app.toml are kept).

Usage:
  {bin} init [moniker] --home <dir> [flags]

Flags:
      --chain-id string         chain id (default "sim-1")
      --voting-period string    gov voting period, Go duration (default "10s")
      --deposit-period string   gov deposit period, Go duration (default "10s")
      --min-deposit string      minimum deposit to enter voting (default "10000000stake")
      --auto-vote               the validators vote yes on every proposal as soon as voting starts
      --sim-validators string   more validators in staking and gov (not in consensus): alice=300000,bob=200000;
                                they vote with tx gov vote --from alice
      --sim-gov-v1beta1-only    serve gov v1beta1 only (gRPC, abci_query, REST), as a chain before SDK v0.46
      --sim-full-node           the home's config/priv_validator_key.json is not the validator's key: genesis,
                                staking and the validator set hold another (the chain's one validator, which
                                the node still simulates to make blocks); status shows the home's key with
                                voting power 0 and the node signs nothing (priv_validator_state.json stays
                                at height 0). A home whose key file is replaced by another key after init is
                                a full node too; a home with no key file stays the validator
      --overwrite               replace an existing genesis.json
`,
  start: `Run the node.

Usage:
  {bin} start --home <dir> [flags]

Flags:
      --block-time string              interval between blocks, Go duration (default "1s")
      --rpc.laddr string               CometBFT RPC listen address (default "tcp://127.0.0.1:26657"; port 0 = any)
      --grpc.enable                    serve gRPC; --grpc.enable=false: no gRPC listener (default true)
      --grpc.address string            gRPC listen address (default "localhost:9090")
      --api.enable                     serve the REST API (default false, as init writes it)
      --api.address string             REST listen address (default "tcp://localhost:1317")
      --halt-mode string               on an upgrade halt: exit (exit code 2) or stay (keep serving, no blocks) (default "exit")
      --halt-height int                commit this height, then stop (exit 0, or stay up with --halt-mode stay)
      --unsafe-skip-upgrades ints      skip the upgrades due at these heights (space- or comma-separated)
      --pruning string                 past states kept for queries at a height: default|nothing|everything|custom (default "default")
      --pruning-keep-recent uint       recent states kept (only with --pruning custom; at least 2)
      --pruning-interval uint          prune every this many blocks (only with --pruning custom; at least 10)
      --sim-block-time-jitter float    each block interval is --block-time times 1 ± up to this fraction,
                                       uniformly at random: a chain whose block times vary (default 0)
      --sim-peers-power uint           simulate 10 more validators sharing this voting power; a block commits
                                       only when more than 2/3 of the set's power precommitted (default 0)
      --sim-peers-back-after string    at the upgrade height, the binary that runs the upgrade starts without
                                       the peers; they come back one by one, evenly, over this Go duration
                                       from its start (default "0s")
      --sim-not-signing                this node's validator stays in the set but never votes (a wrong key)
      --sim-peer-key string            one simulated peer signs with the key of this priv_validator_key.json
                                       (another home's validator: the network a second machine with that
                                       key leaves); needs --sim-peers-power
      --sim-peer-key-from int          that peer votes from this height on (default 1)
      --sim-peer-key-until int         and up to this height, then is absent (default: no end)
      --log_level string               debug, info or error (default "info")

The bound addresses are written to <home>/config/addresses.json once the node listens.
As in a Cosmos node, flags win over the files, and the files over the defaults:
  <home>/config/config.toml  [rpc] laddr
  <home>/config/app.toml     [grpc] enable, address; [api] enable, address; the pruning keys
init writes them with these defaults. An app.toml without [api] enable (a home made before init
wrote it) keeps the REST API on.
`,
  'in-place-testnet': `Create and start a testnet from current local state.
After utilizing this command the network will start. If the network is stopped,
the normal "start" command should be used. The home's state is changed in place and
cannot be restored: run it on a copy of a node's home.

The validator set becomes one validator: the key of <home>/config/priv_validator_key.json,
operated by <newOperatorAddress> (cosmosvaloper1…), with overwhelming power; the chain id
becomes <newChainID>. With --trigger-testnet-upgrade, the upgrade is scheduled at the last
committed height: the next block runs its handler, or this binary halts there for it.

Usage:
  {bin} in-place-testnet [newChainID] [newOperatorAddress] --home <dir> [flags]

Example:
  {bin} in-place-testnet rehearsal-1 cosmosvaloper1… --trigger-testnet-upgrade v2 --skip-confirmation

Flags:
      --trigger-testnet-upgrade string   If set (example: "v2"), triggers the v2 upgrade handler to run on the first block of the testnet
      --skip-confirmation                Skip the confirmation prompt
  and every flag of start (--block-time, --rpc.laddr, --halt-mode, …)
`,
  tx: `Transactions.

Usage:
  {bin} tx upgrade software-upgrade <name> --title <t> --summary <s> --deposit 10000000stake --upgrade-height <h> --upgrade-info <json> --from <key> [--no-validate] [--direct]
  {bin} tx upgrade cancel-software-upgrade --title <t> --summary <s> --deposit 10000000stake --from <key> [--direct]
  {bin} tx gov vote <proposal-id> <yes|no|abstain|no_with_veto> --from <key>
  {bin} tx gov weighted-vote <proposal-id> <weighted-options> --from <key>
      e.g. yes=0.6,no=0.3,abstain=0.05,no_with_veto=0.05: each option once, decimal weights
      (up to 18 places) summing to exactly 1; an option without =weight weighs 1. A v1
      MsgVoteWeighted (the chain checks the weights); on a --sim-gov-v1beta1-only chain a
      v1beta1 MsgVoteWeighted, checked before sending
  {bin} tx gov deposit <proposal-id> <amount> --from <key>

Flags:
      --from string             key name (validator, alice, bob) or address
      --node string             RPC of the node (default: from <home>/config/addresses.json)
      --no-validate             do not check --upgrade-info
      --direct                  send the upgrade message itself, signed by --from, instead of a proposal
      --safety-delta string     extra time kept for cancelling when warning about the height (default "0s")
      --broadcast-mode string   commit (wait for the block) or sync (default "commit")
  -o, --output string           json or text (default "json")
`,
  'tx upgrade': `Upgrade transaction subcommands

Usage:
  {bin} tx upgrade [command]

Available Commands:
  software-upgrade          Submit a software upgrade proposal
  cancel-software-upgrade   Cancel the current software upgrade proposal
`,
  query: `Queries.

Usage:
  {bin} query upgrade plan|applied <name>|module_versions [module]|authority
  {bin} query gov proposal <id>|proposals|params
  {bin} query stores

Flags:
      --height int      use a specific height to query state at (this can error if the node is pruning state)
      --node string     RPC of the node (default: from <home>/config/addresses.json)
  -o, --output string   json or text (default "text"; applied always prints JSON)
`,
  'query upgrade': `Querying commands for the upgrade module

Usage:
  {bin} query upgrade [command]

Available Commands:
  applied          Block header for height at which a completed upgrade was applied
  authority        Get the upgrade authority address
  module_versions  Get the list of module versions
  plan             Get upgrade plan (if one exists)
`,
  'query gov': `Querying commands for the gov module

Usage:
  {bin} query gov [command]

Available Commands:
  params      Query the gov parameters
  proposal    Query details of a single proposal
  proposals   Query proposals
`,
};

export function helpFor(path: readonly string[], bin: string, version: { name: string; inPlaceTestnet: boolean }): string {
  for (let n = Math.min(path.length, 2); n >= 0; n--) {
    let text = helpTexts[path.slice(0, n).join(' ')];
    if (text === undefined) continue;
    if (!version.inPlaceTestnet) text = text.replace(/^ {2}in-place-testnet .*\n/m, '');
    return text.replaceAll('{bin}', bin).replaceAll('{version}', version.name);
  }
  return '';
}
