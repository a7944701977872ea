/**
 * Brings the @protobufs/* definitions (Cosmos SDK 0.46-era, Tendermint 0.35-era p2p) to what a
 * Cosmos SDK v0.50 / CometBFT 0.38 node serves and this node answers with: SDK 0.47's messages (those
 * of cosmjs-types 0.9) plus v0.50's gov v1 fields. Each change is the SDK's or CometBFT's, with its
 * field numbers and options; the reflection conformance tests compare every reflected message with
 * cosmjs-types and decode the node's own answers with the reflected types, so a gap fails there.
 */
import protobuf from 'protobufjs';

import { parseInto, type ProtoSources, readMore } from './proto-sources.js';

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
    // lookup also finds a like-named object elsewhere (the Query service's Params method): only that very name.
    if (found !== null && found.fullName === `.${name}`) found.parent?.remove(found);
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

const cmtservicePackage = 'github.com/cosmos/cosmos-sdk/client/grpc/cmtservice';

/** SDK v0.50 `cosmos/base/tendermint/v1beta1/types.proto`: the SDK's Block, whose Header gives the proposer in bech32. */
const sdkBlockV050 = `package cosmos.base.tendermint.v1beta1;
message Block {
  Header header = 1 [(gogoproto.nullable) = false, (amino.dont_omitempty) = true];
  .tendermint.types.Data data = 2 [(gogoproto.nullable) = false, (amino.dont_omitempty) = true];
  .tendermint.types.EvidenceList evidence = 3 [(gogoproto.nullable) = false, (amino.dont_omitempty) = true];
  .tendermint.types.Commit last_commit = 4;
}
message Header {
  .tendermint.version.Consensus version = 1 [(gogoproto.nullable) = false, (amino.dont_omitempty) = true];
  string chain_id = 2 [(gogoproto.customname) = "ChainID"];
  int64 height = 3;
  google.protobuf.Timestamp time = 4 [(gogoproto.nullable) = false, (amino.dont_omitempty) = true, (gogoproto.stdtime) = true];
  .tendermint.types.BlockID last_block_id = 5 [(gogoproto.nullable) = false, (amino.dont_omitempty) = true];
  bytes last_commit_hash = 6;
  bytes data_hash = 7;
  bytes validators_hash = 8;
  bytes next_validators_hash = 9;
  bytes consensus_hash = 10;
  bytes app_hash = 11;
  bytes last_results_hash = 12;
  bytes evidence_hash = 13;
  string proposer_address = 14;
}`;

/** SDK v0.50 `cosmos/base/tendermint/v1beta1/query.proto`: ABCIQuery's proofs. */
const proofOpsV050 = `package cosmos.base.tendermint.v1beta1;
message ProofOp {
  string type = 1;
  bytes key = 2;
  bytes data = 3;
}
message ProofOps {
  repeated ProofOp ops = 1 [(gogoproto.nullable) = false];
}`;

/**
 * SDK 0.47 `cosmos/base/tendermint/v1beta1`, with v0.50's options and Go package (cmtservice):
 * `sdk_block` (a Header whose proposer_address is a bech32 string, types.proto),
 * GetNodeInfoResponse.default_node_info and the ABCIQuery method.
 */
function tendermintService(sources: ProtoSources): void {
  const { root, files } = sources;
  const queryFile = 'cosmos/base/tendermint/v1beta1/query.proto';
  const query = files.get(queryFile);
  if (query === undefined) return;
  const typesFile = 'cosmos/base/tendermint/v1beta1/types.proto';
  const pkg = namespace(root, 'cosmos.base.tendermint.v1beta1');
  parseInto(sources, typesFile, sdkBlockV050);
  files.set(typesFile, {
    name: typesFile,
    package: 'cosmos.base.tendermint.v1beta1',
    syntax: 'proto3',
    options: [{ go_package: cmtservicePackage }],
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
  parseInto(sources, queryFile, proofOpsV050);
  const service = root.lookupService('cosmos.base.tendermint.v1beta1.Service');
  const http = { '(google.api.http)': { get: '/cosmos/base/tendermint/v1beta1/abci_query' } };
  service.add(new protobuf.Method('ABCIQuery', 'rpc', 'ABCIQueryRequest', 'ABCIQueryResponse', false, false, undefined, undefined, [http]));
  // v0.50's Go package (client/grpc/cmtservice) in place of 0.46's tmservice.
  const options = query.options.map((option) => ('go_package' in option ? { go_package: cmtservicePackage } : option));
  files.set(queryFile, { ...query, options, imports: [...query.imports, 'amino/amino.proto', typesFile] });
}

/** SDK v0.50 `cosmos/gov/v1/gov.proto` Proposal: 0.47's title, summary, proposer; 0.50's expedited, failed_reason. */
const proposalV050 = `package cosmos.gov.v1;
message Proposal {
  uint64 id = 1;
  repeated google.protobuf.Any messages = 2;
  ProposalStatus status = 3;
  TallyResult final_tally_result = 4;
  google.protobuf.Timestamp submit_time = 5 [(gogoproto.stdtime) = true];
  google.protobuf.Timestamp deposit_end_time = 6 [(gogoproto.stdtime) = true];
  repeated cosmos.base.v1beta1.Coin total_deposit = 7 [(gogoproto.nullable) = false, (amino.dont_omitempty) = true];
  google.protobuf.Timestamp voting_start_time = 8 [(gogoproto.stdtime) = true];
  google.protobuf.Timestamp voting_end_time = 9 [(gogoproto.stdtime) = true];
  string metadata = 10;
  string title = 11;
  string summary = 12;
  string proposer = 13 [(cosmos_proto.scalar) = "cosmos.AddressString"];
  bool expedited = 14;
  string failed_reason = 15;
}`;

/** SDK v0.50 `cosmos/gov/v1/gov.proto` Params (0.47's message with 0.50's cancel, expedited and min_deposit_ratio fields). */
const paramsV050 = `package cosmos.gov.v1;
message Params {
  repeated cosmos.base.v1beta1.Coin min_deposit = 1 [(gogoproto.nullable) = false, (amino.dont_omitempty) = true];
  google.protobuf.Duration max_deposit_period = 2 [(gogoproto.stdduration) = true];
  google.protobuf.Duration voting_period = 3 [(gogoproto.stdduration) = true];
  string quorum = 4 [(cosmos_proto.scalar) = "cosmos.Dec"];
  string threshold = 5 [(cosmos_proto.scalar) = "cosmos.Dec"];
  string veto_threshold = 6 [(cosmos_proto.scalar) = "cosmos.Dec"];
  string min_initial_deposit_ratio = 7 [(cosmos_proto.scalar) = "cosmos.Dec"];
  string proposal_cancel_ratio = 8 [(cosmos_proto.scalar) = "cosmos.Dec"];
  string proposal_cancel_dest = 9 [(cosmos_proto.scalar) = "cosmos.AddressString"];
  google.protobuf.Duration expedited_voting_period = 10 [(gogoproto.stdduration) = true];
  string expedited_threshold = 11 [(cosmos_proto.scalar) = "cosmos.Dec"];
  repeated cosmos.base.v1beta1.Coin expedited_min_deposit = 12 [(gogoproto.nullable) = false, (amino.dont_omitempty) = true];
  bool burn_vote_quorum = 13;
  bool burn_proposal_deposit_prevote = 14;
  bool burn_vote_veto = 15;
  string min_deposit_ratio = 16 [(cosmos_proto.scalar) = "cosmos.Dec"];
}`;

/** SDK v0.50 `cosmos/gov/v1/tx.proto` MsgSubmitProposal: 0.47's title and summary, 0.50's expedited. */
const msgSubmitProposalV050 = `package cosmos.gov.v1;
message MsgSubmitProposal {
  option (cosmos.msg.v1.signer) = "proposer";
  option (amino.name) = "cosmos-sdk/v1/MsgSubmitProposal";
  repeated google.protobuf.Any messages = 1;
  repeated cosmos.base.v1beta1.Coin initial_deposit = 2
      [(gogoproto.nullable) = false, (amino.dont_omitempty) = true, (amino.encoding) = "legacy_coins"];
  string proposer = 3 [(cosmos_proto.scalar) = "cosmos.AddressString"];
  string metadata = 4;
  string title = 5;
  string summary = 6;
  bool expedited = 7;
}`;

/** SDK v0.50 `cosmos/gov/v1/query.proto`: the Constitution query's messages. */
const constitutionV050 = `package cosmos.gov.v1;
message QueryConstitutionRequest {}
message QueryConstitutionResponse {
  string constitution = 1;
}`;

/** Adds `import` to a read file's imports (a definition given to it uses that file's types). */
function addImport(sources: ProtoSources, file: string, imported: string): void {
  const info = sources.files.get(file);
  if (info !== undefined && !info.imports.includes(imported)) sources.files.set(file, { ...info, imports: [...info.imports, imported] });
}

/**
 * SDK v0.50 `cosmos/gov/v1`: Proposal, Params and MsgSubmitProposal redefined whole, as the SDK's
 * files declare them; QueryParamsResponse.params (0.47); the Constitution query (0.50).
 */
function govV1(sources: ProtoSources): void {
  const { root, files } = sources;
  const govFile = 'cosmos/gov/v1/gov.proto';
  if (!files.has(govFile)) return;
  removeNested(root, ['cosmos.gov.v1.Proposal', 'cosmos.gov.v1.Params']);
  parseInto(sources, govFile, proposalV050);
  parseInto(sources, govFile, paramsV050);
  addImport(sources, govFile, 'amino/amino.proto');
  const txFile = 'cosmos/gov/v1/tx.proto';
  if (files.has(txFile)) {
    removeNested(root, ['cosmos.gov.v1.MsgSubmitProposal']);
    parseInto(sources, txFile, msgSubmitProposalV050);
    addImport(sources, txFile, 'amino/amino.proto');
  }
  const queryFile = 'cosmos/gov/v1/query.proto';
  if (files.has(queryFile)) {
    addFields(root, 'cosmos.gov.v1.QueryParamsResponse', { params: { type: '.cosmos.gov.v1.Params', id: 4 } });
    parseInto(sources, queryFile, constitutionV050);
    const http = { '(google.api.http)': { get: '/cosmos/gov/v1/constitution' } };
    const method = new protobuf.Method('Constitution', 'rpc', 'QueryConstitutionRequest', 'QueryConstitutionResponse', false, false, undefined, undefined, [
      http,
    ]);
    root.lookupService('cosmos.gov.v1.Query').add(method);
  }
}

/** SDK 0.47+ `cosmos/crypto/ed25519/keys.proto`: the keys' amino names (a validator's pub_key Any carries PubKey). */
const ed25519KeysV050 = `package cosmos.crypto.ed25519;
message PubKey {
  option (amino.name) = "tendermint/PubKeyEd25519";
  option (amino.message_encoding) = "key_field";
  option (gogoproto.goproto_stringer) = false;
  bytes key = 1 [(gogoproto.casttype) = "crypto/ed25519.PublicKey"];
}
message PrivKey {
  option (amino.name) = "tendermint/PrivKeyEd25519";
  option (amino.message_encoding) = "key_field";
  bytes key = 1 [(gogoproto.casttype) = "crypto/ed25519.PrivateKey"];
}`;

function ed25519Keys(sources: ProtoSources): void {
  const file = 'cosmos/crypto/ed25519/keys.proto';
  if (!sources.files.has(file)) return;
  removeNested(sources.root, ['cosmos.crypto.ed25519.PubKey', 'cosmos.crypto.ed25519.PrivKey']);
  parseInto(sources, file, ed25519KeysV050);
  addImport(sources, file, 'amino/amino.proto');
}

/** Applies every change above that concerns a file in `sources`. */
export function upgradeToSdk050(sources: ProtoSources): void {
  cometP2p(sources);
  tendermintService(sources);
  govV1(sources);
  ed25519Keys(sources);
  // The files the SDK 0.47/0.50 definitions import that the older ones did not (amino).
  readMore(
    sources,
    [...sources.files.values()].flatMap((file) => file.imports),
  );
}
