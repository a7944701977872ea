/**
 * What the node says about itself: CometBFT's node info (`default_node_info` of the tendermint
 * service's GetNodeInfo, the same values as RPC `status.node_info`) and the application's version
 * info (GetNodeInfo's `application_version`, the fields of `version --long`).
 */
import { type KVReader, prefixed } from '../store/kv.js';
import { getProtocolVersion } from '../upgrade/keeper.js';
import { storePrefix as upgradeStorePrefix } from '../upgrade/keys.js';

/** The CometBFT release the node's answers follow, and the Cosmos SDK release that goes with it. */
export const cometVersion = '0.38.12';
export const cosmosSdkVersion = 'v0.50.10';

export interface NodeIdentity {
  chainId: string;
  /** The binary's name (`simd`): `app_name`. */
  name: string;
  /** The moniker given to `init` (config.toml). */
  moniker: string;
  /** CometBFT's node id, from the home's node_key.json. */
  nodeId: string;
  /** The binary's version (`genesis`, `v2`, …). */
  version: string;
  /** The RPC listen address, once bound (`tcp://127.0.0.1:26657`). */
  rpcAddress(): string;
  /**
   * The app version (the upgrade module's protocol version) when the node started. CometBFT builds its
   * node info once, at start: after an upgrade it keeps the old version until the node restarts.
   */
  appVersionAtStart: number;
}

/** CometBFT's DefaultNodeInfo in its JSON form (RPC `status.node_info`). */
export interface NodeInfoJson {
  protocol_version: { p2p: string; block: string; app: string };
  id: string;
  listen_addr: string;
  network: string;
  version: string;
  channels: string;
  moniker: string;
  other: { tx_index: string; rpc_address: string };
}

/** The app version in the committed state: what the node info takes at start. */
export async function appVersionOf(reader: KVReader): Promise<number> {
  return getProtocolVersion(prefixed(reader, upgradeStorePrefix));
}

export function nodeInfo(identity: Omit<NodeIdentity, 'version' | 'name'>): NodeInfoJson {
  return {
    protocol_version: { p2p: '8', block: '11', app: String(identity.appVersionAtStart) },
    id: identity.nodeId,
    listen_addr: 'tcp://0.0.0.0:26656',
    network: identity.chainId,
    version: cometVersion,
    channels: '40202122233038606100',
    moniker: identity.moniker,
    other: { tx_index: 'on', rpc_address: identity.rpcAddress() },
  };
}

/** The SDK's version.Info (GetNodeInfo `application_version`); `go_version` names the Node.js runtime. */
export function versionInfo(identity: NodeIdentity) {
  return {
    name: 'sim',
    app_name: identity.name,
    version: identity.version,
    git_commit: '',
    build_tags: '',
    go_version: `node ${process.version}`,
    build_deps: [] as Array<{ path: string; version: string; sum: string }>,
    cosmos_sdk_version: cosmosSdkVersion,
  };
}
