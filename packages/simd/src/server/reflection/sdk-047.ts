/**
 * Brings the @protobufs/* definitions (Cosmos SDK 0.46-era, Tendermint 0.35-era p2p) to what a
 * Cosmos SDK 0.47 / CometBFT 0.37 node serves — the messages cosmjs-types 0.9 encodes and this node
 * answers with. Each change is the SDK's or CometBFT's, named by its field numbers; the reflection
 * conformance test compares every reflected message with cosmjs-types, so a missing one fails there.
 */
import protobuf from 'protobufjs';
import { readMore, type ProtoSources } from './proto-sources.js';

type Fields = Record<string, { type: string; id: number; rule?: 'repeated' }>;

function namespace(root: protobuf.Root, name: string): protobuf.Namespace {
  const found = root.lookup(name);
  if (!(found instanceof protobuf.Namespace)) throw new Error(`proto package ${name} is not loaded`);
  return found;
}

function defineType(ns: protobuf.Namespace, filename: string, name: string, fields: Fields, reserved?: number[][]): void {
  const type = protobuf.Type.fromJSON(name, { fields, ...(reserved === undefined ? {} : { reserved }) });
  type.filename = filename;
  ns.add(type);
}

function addFields(root: protobuf.Root, typeName: string, fields: Fields): void {
  const type = root.lookupType(typeName);
  for (const [name, field] of Object.entries(fields)) type.add(new protobuf.Field(name, field.id, field.type, field.rule));
}

function removeNested(root: protobuf.Root, names: string[]): void {
  for (const name of names) {
    const found = root.lookup(name);
    if (found !== null) found.parent?.remove(found);
  }
}

/** CometBFT 0.37 `tendermint/p2p/types.proto`: DefaultNodeInfo (what GetNodeInfo returns), NetAddress. */
function cometP2p(sources: ProtoSources): void {
  const { root, files } = sources;
  const file = 'tendermint/p2p/types.proto';
  if (!files.has(file)) return;
  removeNested(root, ['tendermint.p2p.NodeInfo', 'tendermint.p2p.NodeInfoOther', 'tendermint.p2p.PeerInfo', 'tendermint.p2p.PeerAddressInfo']);
  const p2p = namespace(root, 'tendermint.p2p');
  defineType(p2p, file, 'NetAddress', { id: { type: 'string', id: 1 }, ip: { type: 'string', id: 2 }, port: { type: 'uint32', id: 3 } });
  defineType(p2p, file, 'DefaultNodeInfo', {
    protocol_version: { type: 'ProtocolVersion', id: 1 },
    default_node_id: { type: 'string', id: 2 },
    listen_addr: { type: 'string', id: 3 },
    network: { type: 'string', id: 4 },
    version: { type: 'string', id: 5 },
    channels: { type: 'bytes', id: 6 },
    moniker: { type: 'string', id: 7 },
    other: { type: 'DefaultNodeInfoOther', id: 8 },
  });
  defineType(p2p, file, 'DefaultNodeInfoOther', { tx_index: { type: 'string', id: 1 }, rpc_address: { type: 'string', id: 2 } });
  const info = files.get(file);
  if (info !== undefined) files.set(file, { ...info, imports: ['gogoproto/gogo.proto'] });
}

/**
 * SDK 0.47 `cosmos/base/tendermint/v1beta1`: `sdk_block` (a Header whose proposer_address is a
 * bech32 string, types.proto), GetNodeInfoResponse.default_node_info and the ABCIQuery method.
 */
function tendermintService(sources: ProtoSources): void {
  const { root, files } = sources;
  const queryFile = 'cosmos/base/tendermint/v1beta1/query.proto';
  const query = files.get(queryFile);
  if (query === undefined) return;
  const typesFile = 'cosmos/base/tendermint/v1beta1/types.proto';
  const pkg = namespace(root, 'cosmos.base.tendermint.v1beta1');
  defineType(pkg, typesFile, 'Block', {
    header: { type: 'Header', id: 1 },
    data: { type: '.tendermint.types.Data', id: 2 },
    evidence: { type: '.tendermint.types.EvidenceList', id: 3 },
    last_commit: { type: '.tendermint.types.Commit', id: 4 },
  });
  defineType(pkg, typesFile, 'Header', {
    version: { type: '.tendermint.version.Consensus', id: 1 },
    chain_id: { type: 'string', id: 2 },
    height: { type: 'int64', id: 3 },
    time: { type: '.google.protobuf.Timestamp', id: 4 },
    last_block_id: { type: '.tendermint.types.BlockID', id: 5 },
    last_commit_hash: { type: 'bytes', id: 6 },
    data_hash: { type: 'bytes', id: 7 },
    validators_hash: { type: 'bytes', id: 8 },
    next_validators_hash: { type: 'bytes', id: 9 },
    consensus_hash: { type: 'bytes', id: 10 },
    app_hash: { type: 'bytes', id: 11 },
    last_results_hash: { type: 'bytes', id: 12 },
    evidence_hash: { type: 'bytes', id: 13 },
    proposer_address: { type: 'string', id: 14 },
  });
  files.set(typesFile, {
    name: typesFile,
    package: 'cosmos.base.tendermint.v1beta1',
    syntax: 'proto3',
    options: [{ go_package: 'github.com/cosmos/cosmos-sdk/client/grpc/tmservice' }],
    imports: [
      'gogoproto/gogo.proto',
      'tendermint/types/types.proto',
      'google/protobuf/timestamp.proto',
      'tendermint/version/types.proto',
      'tendermint/types/evidence.proto',
      'amino/amino.proto',
    ],
  });
  const sdkBlock = { sdk_block: { type: '.cosmos.base.tendermint.v1beta1.Block', id: 3 } };
  addFields(root, 'cosmos.base.tendermint.v1beta1.GetLatestBlockResponse', sdkBlock);
  addFields(root, 'cosmos.base.tendermint.v1beta1.GetBlockByHeightResponse', sdkBlock);
  // Redefined rather than patched, so that its fields keep their declaration order.
  removeNested(root, ['cosmos.base.tendermint.v1beta1.GetNodeInfoResponse']);
  defineType(pkg, queryFile, 'GetNodeInfoResponse', {
    default_node_info: { type: '.tendermint.p2p.DefaultNodeInfo', id: 1 },
    application_version: { type: 'VersionInfo', id: 2 },
  });
  defineType(pkg, queryFile, 'ABCIQueryRequest', {
    data: { type: 'bytes', id: 1 },
    path: { type: 'string', id: 2 },
    height: { type: 'int64', id: 3 },
    prove: { type: 'bool', id: 4 },
  });
  defineType(
    pkg,
    queryFile,
    'ABCIQueryResponse',
    {
      code: { type: 'uint32', id: 1 },
      log: { type: 'string', id: 3 },
      info: { type: 'string', id: 4 },
      index: { type: 'int64', id: 5 },
      key: { type: 'bytes', id: 6 },
      value: { type: 'bytes', id: 7 },
      proof_ops: { type: 'ProofOps', id: 8 },
      height: { type: 'int64', id: 9 },
      codespace: { type: 'string', id: 10 },
    },
    [[2, 2]],
  );
  defineType(pkg, queryFile, 'ProofOp', { type: { type: 'string', id: 1 }, key: { type: 'bytes', id: 2 }, data: { type: 'bytes', id: 3 } });
  defineType(pkg, queryFile, 'ProofOps', { ops: { type: 'ProofOp', id: 1, rule: 'repeated' } });
  const service = root.lookupService('cosmos.base.tendermint.v1beta1.Service');
  const http = { '(google.api.http)': { get: '/cosmos/base/tendermint/v1beta1/abci_query' } };
  service.add(new protobuf.Method('ABCIQuery', 'rpc', 'ABCIQueryRequest', 'ABCIQueryResponse', false, false, undefined, undefined, [http]));
  files.set(queryFile, { ...query, imports: [...query.imports, 'amino/amino.proto', typesFile] });
}

/**
 * SDK 0.47 `cosmos/gov/v1`: Proposal's title, summary and proposer; Params; QueryParamsResponse.params;
 * MsgSubmitProposal's title and summary.
 */
function govV1(sources: ProtoSources): void {
  const { root, files } = sources;
  const govFile = 'cosmos/gov/v1/gov.proto';
  if (!files.has(govFile)) return;
  addFields(root, 'cosmos.gov.v1.Proposal', {
    title: { type: 'string', id: 11 },
    summary: { type: 'string', id: 12 },
    proposer: { type: 'string', id: 13 },
  });
  defineType(namespace(root, 'cosmos.gov.v1'), govFile, 'Params', {
    min_deposit: { type: '.cosmos.base.v1beta1.Coin', id: 1, rule: 'repeated' },
    max_deposit_period: { type: '.google.protobuf.Duration', id: 2 },
    voting_period: { type: '.google.protobuf.Duration', id: 3 },
    quorum: { type: 'string', id: 4 },
    threshold: { type: 'string', id: 5 },
    veto_threshold: { type: 'string', id: 6 },
    min_initial_deposit_ratio: { type: 'string', id: 7 },
    burn_vote_quorum: { type: 'bool', id: 13 },
    burn_proposal_deposit_prevote: { type: 'bool', id: 14 },
    burn_vote_veto: { type: 'bool', id: 15 },
  });
  if (files.has('cosmos/gov/v1/tx.proto')) {
    addFields(root, 'cosmos.gov.v1.MsgSubmitProposal', { title: { type: 'string', id: 5 }, summary: { type: 'string', id: 6 } });
  }
  if (files.has('cosmos/gov/v1/query.proto')) {
    addFields(root, 'cosmos.gov.v1.QueryParamsResponse', { params: { type: '.cosmos.gov.v1.Params', id: 4 } });
  }
}

/** Applies every change above that concerns a file in `sources`. */
export function upgradeToSdk047(sources: ProtoSources): void {
  cometP2p(sources);
  tendermintService(sources);
  govV1(sources);
  // The files the SDK 0.47 definitions import that the older ones did not (amino).
  readMore(sources, [...sources.files.values()].flatMap((file) => file.imports));
}
