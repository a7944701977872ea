/**
 * Query errors as a Cosmos-SDK v0.50 node gives them, on every surface: gRPC (grpc-js + cosmjs-types:
 * status code and message), REST (HTTP status and the gateway's `{"code","message","details"}`), CometBFT
 * `abci_query` (code, codespace, log) and CosmJS's QueryClient over Comet38Client (the thrown message),
 * and the CLI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createProtobufRpcClient, QueryClient, type QueryClient as QueryClientType, setupGovExtension } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { status } from '@grpc/grpc-js';
import { QueryClientImpl as GovV1Query, QueryProposalRequest } from 'cosmjs-types/cosmos/gov/v1/query.js';
import { QueryClientImpl as GovV1beta1Query } from 'cosmjs-types/cosmos/gov/v1beta1/query.js';
import { QueryClientImpl as UpgradeQuery, QueryModuleVersionsRequest } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { grpcError, grpcRpc } from '../support/grpc-client.js';
import { cli, simFixture, startNode } from '../support/node-harness.js';

/** CosmJS has no upgrade extension; this is one the way CosmJS builds its own (a protobuf RPC client). */
function setupUpgradeExtension(base: QueryClientType) {
  const query = new UpgradeQuery(createProtobufRpcClient(base));
  return { upgrade: { moduleVersions: (moduleName: string) => query.ModuleVersions({ moduleName }) } };
}

const moduleMessage = 'codespace upgrade code 2: module version not found: x/upgrade: QueryModuleVersions module nosuch not found';

test('query errors: codes, messages and statuses as the SDK gives them on gRPC, REST, abci_query, CosmJS and the CLI', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(2);
  const { client, rpc, call } = grpcRpc(node.addresses.grpc);
  t.after(() => client.close());
  const alice = (await cli(bin, ['keys', 'show', 'alice', '-a', '--home', home])).stdout.trim();

  // gRPC: the handler's status as is.
  const upgrade = new UpgradeQuery(rpc);
  const govV1 = new GovV1Query(rpc);
  const govV1beta1 = new GovV1beta1Query(rpc);
  const grpcCases: Array<[() => Promise<unknown>, number, string]> = [
    [() => upgrade.ModuleVersions({ moduleName: 'nosuch' }), status.UNKNOWN, moduleMessage],
    [() => govV1.Proposal({ proposalId: 0n }), status.INVALID_ARGUMENT, 'proposal id can not be 0'],
    [() => govV1.Proposal({ proposalId: 99n }), status.NOT_FOUND, "proposal 99 doesn't exist"],
    [() => govV1beta1.Proposal({ proposalId: 99n }), status.NOT_FOUND, "proposal 99 doesn't exist"],
    [() => govV1.TallyResult({ proposalId: 7n }), status.NOT_FOUND, "proposal 7 doesn't exist"],
    [() => govV1.Vote({ proposalId: 1n, voter: '' }), status.INVALID_ARGUMENT, 'empty voter address'],
    [() => govV1.Vote({ proposalId: 1n, voter: alice }), status.INVALID_ARGUMENT, `voter: ${alice} not found for proposal: 1`],
    [() => govV1.Votes({ proposalId: 0n }), status.INVALID_ARGUMENT, 'proposal id can not be 0'],
    [() => govV1.Deposit({ proposalId: 1n, depositor: '' }), status.INVALID_ARGUMENT, 'empty depositor address'],
    [
      () => govV1.Deposit({ proposalId: 1n, depositor: alice }),
      status.NOT_FOUND,
      `collections: not found: key '("1", "${alice}")' of type github.com/cosmos/gogoproto/cosmos.gov.v1.Deposit`,
    ],
    [() => govV1.Params({ paramsType: 'bogus' }), status.INVALID_ARGUMENT, 'unknown params type: bogus'],
    [() => govV1beta1.Params({ paramsType: '' }), status.INVALID_ARGUMENT, ' is not a valid parameter type'],
    [
      () => govV1.Votes({ proposalId: 1n, pagination: { key: new Uint8Array([1]), offset: 1n, limit: 0n, countTotal: false, reverse: false } }),
      status.INTERNAL,
      'invalid request, either offset or key is expected, got both',
    ],
    [() => call('/cosmos.gov.v1.Query/Nope'), status.UNIMPLEMENTED, 'unknown method Nope for service cosmos.gov.v1.Query'],
    [() => call('/cosmos.nope.v1.Query/Nope'), status.UNIMPLEMENTED, 'unknown service cosmos.nope.v1.Query'],
  ];
  for (const [request, code, details] of grpcCases) {
    const error = await grpcError(request());
    assert.deepEqual([error.code, error.details], [code, details]);
  }
  // Request bytes that are not the request message: refused before the handler, as grpc-go does.
  const garbled = new Uint8Array([0x08, 0xff]);
  const undecodable = await grpcError(call('/cosmos.gov.v1.Query/Proposal', garbled));
  assert.equal(undecodable.code, status.INTERNAL);
  assert.match(undecodable.details, /^grpc: error unmarshalling request: /);

  // An offset past the end is an empty page (the SDK's pagination swallows collections' invalid iterator).
  const pastEnd = { key: new Uint8Array(), offset: 9n, limit: 0n, countTotal: false, reverse: false };
  const past = await govV1.Proposals({ proposalStatus: 0, voter: '', depositor: '', pagination: pastEnd });
  assert.deepEqual([past.proposals, past.pagination?.nextKey.length, past.pagination?.total], [[], 0, 0n]);
  assert.deepEqual((await govV1.Votes({ proposalId: 1n, pagination: pastEnd })).votes, []);

  // REST: the gRPC status, with the HTTP status grpc-gateway derives from its code.
  const restCases: Array<[string, number, unknown]> = [
    ['/cosmos/upgrade/v1beta1/module_versions?module_name=nosuch', 500, { code: 2, message: moduleMessage, details: [] }],
    ['/cosmos/gov/v1/proposals/0', 400, { code: 3, message: 'proposal id can not be 0', details: [] }],
    ['/cosmos/gov/v1/proposals/99', 404, { code: 5, message: "proposal 99 doesn't exist", details: [] }],
    ['/cosmos/gov/v1beta1/proposals/99/tally', 404, { code: 5, message: "proposal 99 doesn't exist", details: [] }],
    [
      '/cosmos/gov/v1/proposals/abc',
      400,
      { code: 3, message: 'type mismatch, parameter: proposal_id, error: strconv.ParseUint: parsing "abc": invalid syntax', details: [] },
    ],
    ['/cosmos/gov/v1beta1/proposals?proposal_status=BOGUS', 400, { code: 3, message: 'BOGUS is not a valid v1beta1.ProposalStatus', details: [] }],
    ['/cosmos/gov/v1/params/bogus', 400, { code: 3, message: 'unknown params type: bogus', details: [] }],
    [`/cosmos/gov/v1/proposals/1/votes/${alice}`, 400, { code: 3, message: `voter: ${alice} not found for proposal: 1`, details: [] }],
    [
      '/cosmos/gov/v1/proposals?pagination.key=AQ==&pagination.offset=1',
      500,
      { code: 13, message: 'invalid request, either offset or key is expected, got both', details: [] },
    ],
    ['/cosmos/gov/v1/params', 501, { code: 12, message: 'Not Implemented', details: [] }],
    ['/cosmos/nope', 501, { code: 12, message: 'Not Implemented', details: [] }],
  ];
  for (const [path, httpStatus, body] of restCases) {
    const answer = await node.http('api', path);
    assert.deepEqual([path, answer.status, answer.body], [path, httpStatus, body]);
  }
  const posted = await fetch(`${node.addresses.api.replace(/^tcp:/, 'http:')}/cosmos/upgrade/v1beta1/current_plan`, { method: 'POST' });
  assert.deepEqual([posted.status, await posted.json()], [501, { code: 12, message: 'Not Implemented', details: [] }]);

  // abci_query: baseapp's own error made of the handler's, at the query's height; an unknown path has none.
  const abci = async (path: string, data: Uint8Array) =>
    (await node.http('rpc', `/abci_query?path="${path}"&data=0x${Buffer.from(data).toString('hex')}`)).body.result.response;
  const missingModule = await abci('/cosmos.upgrade.v1beta1.Query/ModuleVersions', QueryModuleVersionsRequest.encode({ moduleName: 'nosuch' }).finish());
  assert.deepEqual(
    [missingModule.code, missingModule.codespace, missingModule.log],
    [6, 'sdk', 'x/upgrade: QueryModuleVersions module nosuch not found: module version not found: unknown request'],
  );
  assert.ok(Number(missingModule.height) >= 2);
  const missingProposal = await abci('/cosmos.gov.v1.Query/Proposal', QueryProposalRequest.encode({ proposalId: 99n }).finish());
  assert.deepEqual(
    [missingProposal.code, missingProposal.codespace, missingProposal.log],
    [22, 'sdk', "rpc error: code = NotFound desc = proposal 99 doesn't exist: key not found"],
  );
  const zero = await abci('/cosmos.gov.v1.Query/Proposal', QueryProposalRequest.encode({ proposalId: 0n }).finish());
  assert.deepEqual([zero.code, zero.codespace, zero.log], [18, 'sdk', 'rpc error: code = InvalidArgument desc = proposal id can not be 0: invalid request']);
  const garbledAbci = await abci('/cosmos.upgrade.v1beta1.Query/ModuleVersions', garbled);
  assert.deepEqual([garbledAbci.code, garbledAbci.codespace], [18, 'sdk']);
  assert.match(garbledAbci.log, /: invalid request$/);
  const unknownPath = await abci('/cosmos.nope.v1.Query/Nope', new Uint8Array());
  assert.deepEqual([unknownPath.code, unknownPath.codespace, unknownPath.log, unknownPath.height], [6, 'sdk', 'unknown query path: unknown request', '0']);

  // CosmJS over CometBFT RPC: its QueryClient throws with the code and the log.
  const comet = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());
  const cosmjs = QueryClient.withExtensions(comet, setupGovExtension, setupUpgradeExtension);
  await assert.rejects(cosmjs.upgrade.moduleVersions('nosuch'), {
    message: 'Query failed with (6): x/upgrade: QueryModuleVersions module nosuch not found: module version not found: unknown request',
  });
  await assert.rejects(cosmjs.gov.proposal(99), {
    message: "Query failed with (22): rpc error: code = NotFound desc = proposal 99 doesn't exist: key not found",
  });
  await assert.rejects(cosmjs.gov.deposit(1, alice), /Query failed with \(22\): rpc error: code = NotFound desc = collections: not found: key/);

  // The CLI: the SDK's texts and exit code 1.
  const applied = await cli(bin, ['query', 'upgrade', 'applied', 'nosuch', '--home', home]);
  assert.deepEqual([applied.code, applied.stderr.trim()], [1, 'Error: no upgrade found']);
  const versions = await cli(bin, ['query', 'upgrade', 'module_versions', 'nosuch', '--home', home]);
  assert.deepEqual(
    [versions.code, versions.stderr.trim()],
    [1, 'Error: rpc error: code = Unknown desc = x/upgrade: QueryModuleVersions module nosuch not found: module version not found: unknown request'],
  );
});
