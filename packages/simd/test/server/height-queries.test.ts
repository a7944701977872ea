/**
 * Queries at a past height on the three surfaces, with real clients: grpc-js + cosmjs-types with
 * `x-cosmos-block-height` metadata, REST with the header, CosmJS QueryClient over Comet38Client —
 * the plan as it was before it was scheduled, while it was, and after it was cancelled; the height
 * echoed back; and the SDK's errors for a future, pruned, negative or malformed height.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import { QueryClient } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { GetLatestBlockResponse } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query.js';
import { QueryCurrentPlanRequest, QueryCurrentPlanResponse, QueryModuleVersionsRequest } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { cli, proposeCancel, proposeUpgrade, simFixture, type SimNode, startNode, waitFor, waitForProposal } from '../support/node-harness.js';

const currentPlan = '/cosmos.upgrade.v1beta1.Query/CurrentPlan';
const request = QueryCurrentPlanRequest.encode({}).finish();

interface GrpcAnswer {
  plan?: string;
  height?: string;
  error?: ServiceError;
}

/** A unary call over grpc-js, with `x-cosmos-block-height` when given; the response's header height. */
function grpcUnary<T>(client: Client, method: string, data: Uint8Array, decode: (b: Buffer) => T, height?: string) {
  const metadata = new Metadata();
  if (height !== undefined) metadata.set('x-cosmos-block-height', height);
  return new Promise<{ value?: T; height?: string; error?: ServiceError }>((resolve) => {
    let echoed: string | undefined;
    const call = client.makeUnaryRequest(
      method,
      (x: Uint8Array) => Buffer.from(x),
      decode,
      data,
      metadata,
      (error, value) => resolve(error ? { error, height: echoed } : { value, height: echoed }),
    );
    call.on('metadata', (md: Metadata) => {
      echoed = md.get('x-cosmos-block-height')[0]?.toString();
    });
  });
}

/** CurrentPlan: the plan's name ('' for none) and the height echoed, or the error. */
async function grpcCurrentPlan(client: Client, height?: string): Promise<GrpcAnswer> {
  const { value, height: echoed, error } = await grpcUnary(client, currentPlan, request, (b) => QueryCurrentPlanResponse.decode(b), height);
  return error ? { error, height: echoed } : { plan: value?.plan?.name ?? '', height: echoed };
}

async function restCurrentPlan(node: SimNode, height?: string) {
  const url = `${node.addresses.api.replace(/^tcp:/, 'http:')}/cosmos/upgrade/v1beta1/current_plan`;
  const response = await fetch(url, { headers: height === undefined ? {} : { 'x-cosmos-block-height': height } });
  return { status: response.status, body: (await response.json()) as any, height: response.headers.get('grpc-metadata-x-cosmos-block-height') };
}

async function cancelUpgrade(bin: string, home: string): Promise<string> {
  return (await proposeCancel(bin, home)).id;
}

test('a plan is seen at the heights it was scheduled, not before nor after its cancellation, on gRPC, REST and ABCI', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(2);
  const client = new Client(node.addresses.grpc, credentials.createInsecure());
  t.after(() => client.close());
  const comet = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());
  const abci = new QueryClient(comet);

  const before = await grpcCurrentPlan(client);
  assert.equal(before.plan, '');
  const beforeHeight = Number(before.height);
  assert.ok(beforeHeight >= 2, `latest height echoed: ${before.height}`);

  const info = fx.built.versions.v2?.info as string;
  const { id } = await proposeUpgrade(bin, home, { name: 'v2', height: (await node.height()) + 1000, info });
  await waitForProposal(bin, home, id, /PASSED/);
  const scheduled = await grpcCurrentPlan(client);
  assert.equal(scheduled.plan, 'v2');
  const scheduledHeight = Number(scheduled.height);

  await waitForProposal(bin, home, await cancelUpgrade(bin, home), /PASSED/);
  const cancelled = await waitFor(async () => {
    const answer = await grpcCurrentPlan(client);
    return answer.plan === '' ? answer : undefined;
  }, 'the plan to be cancelled');
  const cancelledHeight = Number(cancelled.height);
  assert.ok(beforeHeight < scheduledHeight && scheduledHeight < cancelledHeight);

  // gRPC: the state at each height, and that height in the response metadata.
  assert.deepEqual(await grpcCurrentPlan(client, String(beforeHeight)), { plan: '', height: String(beforeHeight) });
  assert.deepEqual(await grpcCurrentPlan(client, String(scheduledHeight)), { plan: 'v2', height: String(scheduledHeight) });
  assert.deepEqual(await grpcCurrentPlan(client, String(cancelledHeight)), { plan: '', height: String(cancelledHeight) });

  // REST: the header selects the height; Grpc-Metadata-X-Cosmos-Block-Height echoes it (the latest without one).
  const restScheduled = await restCurrentPlan(node, String(scheduledHeight));
  assert.equal(restScheduled.status, 200);
  assert.equal(restScheduled.body.plan?.name, 'v2');
  assert.equal(restScheduled.height, String(scheduledHeight));
  assert.deepEqual((await restCurrentPlan(node, String(beforeHeight))).body, { plan: null });
  const restLatest = await restCurrentPlan(node);
  assert.deepEqual(restLatest.body, { plan: null });
  assert.ok(Number(restLatest.height) >= cancelledHeight);

  // A query failing at an accepted height still carries it; blocks come from the block store at any height.
  const missing = await grpcUnary(
    client,
    '/cosmos.upgrade.v1beta1.Query/ModuleVersions',
    QueryModuleVersionsRequest.encode({ moduleName: 'nosuch' }).finish(),
    (b) => b,
    String(scheduledHeight),
  );
  assert.ok(missing.error !== undefined);
  assert.equal(missing.height, String(scheduledHeight));
  const latestBlock = await grpcUnary(
    client,
    '/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock',
    new Uint8Array(),
    (b) => GetLatestBlockResponse.decode(b),
    String(beforeHeight),
  );
  assert.equal(latestBlock.height, String(beforeHeight));
  assert.ok(Number(latestBlock.value?.block?.header?.height) >= cancelledHeight);

  // ABCI (CosmJS QueryClient over Comet38Client): answered at that height, which the response names.
  const atScheduled = await abci.queryAbci(currentPlan, request, scheduledHeight);
  assert.equal(atScheduled.height, scheduledHeight);
  assert.equal(QueryCurrentPlanResponse.decode(atScheduled.value).plan?.name, 'v2');
  const atCancelled = await abci.queryAbci(currentPlan, request, cancelledHeight);
  assert.equal(atCancelled.height, cancelledHeight);
  assert.equal(QueryCurrentPlanResponse.decode(atCancelled.value).plan, undefined);
  const latest = await abci.queryAbci(currentPlan, request);
  assert.ok(latest.height >= cancelledHeight);

  // The CLI's --height.
  const cliAt = await cli(bin, ['query', 'upgrade', 'plan', '--height', String(scheduledHeight), '--home', home, '--output', 'json']);
  assert.equal(cliAt.code, 0, cliAt.stderr);
  assert.equal(JSON.parse(cliAt.stdout).name, 'v2');
  const cliAfter = await cli(bin, ['query', 'upgrade', 'plan', '--height', String(cancelledHeight), '--home', home]);
  assert.equal(cliAfter.code, 1);
  assert.match(cliAfter.stderr, /no upgrade scheduled/);

  // A future height: ErrInvalidHeight (sdk 26), gRPC UNKNOWN, REST 500, no height in the answer.
  const future = String(Number(restLatest.height) + 1000);
  const grpcFuture = await grpcCurrentPlan(client, future);
  assert.equal(grpcFuture.error?.code, 2);
  assert.equal(grpcFuture.error?.details, 'codespace sdk code 26: invalid height: cannot query with height in the future; please provide a valid height');
  assert.equal(grpcFuture.height, undefined);
  const restFuture = await restCurrentPlan(node, future);
  assert.equal(restFuture.status, 500);
  assert.deepEqual(restFuture.body, {
    code: 2,
    message: 'codespace sdk code 26: invalid height: cannot query with height in the future; please provide a valid height',
    details: [],
  });
  assert.equal(restFuture.height, null);
  const abciFuture = await comet.abciQuery({ path: currentPlan, data: request, height: Number(future) });
  assert.equal(abciFuture.code, 26);
  assert.equal(abciFuture.codespace, 'sdk');
  assert.equal(abciFuture.log, 'cannot query with height in the future; please provide a valid height: invalid height');
  assert.equal(abciFuture.height, 0);

  // A negative or malformed height: ErrInvalidRequest (sdk 18).
  const grpcNegative = await grpcCurrentPlan(client, '-1');
  assert.equal(grpcNegative.error?.code, 2);
  assert.equal(grpcNegative.error?.details, 'codespace sdk code 18: invalid request: cannot query with height < 0; please provide a valid height');
  const grpcMalformed = await grpcCurrentPlan(client, 'abc');
  assert.equal(grpcMalformed.error?.code, 2);
  assert.equal(
    grpcMalformed.error?.details,
    'codespace sdk code 18: invalid request: Baseapp.RegisterGRPCServer: invalid height header "x-cosmos-block-height": strconv.ParseInt: parsing "abc": invalid syntax',
  );
  const restMalformed = await restCurrentPlan(node, '12x');
  assert.equal(restMalformed.status, 500);
  assert.match(
    restMalformed.body.message,
    /^codespace sdk code 18: invalid request: Baseapp\.RegisterGRPCServer: invalid height header "x-cosmos-block-height": strconv\.ParseInt: parsing "12x": invalid syntax$/,
  );
  const abciNegative = (await node.http('rpc', `/abci_query?path="${currentPlan}"&height=-1`)).body.result.response;
  assert.deepEqual(
    { code: abciNegative.code, codespace: abciNegative.codespace, log: abciNegative.log, height: abciNegative.height },
    { code: 18, codespace: 'sdk', log: 'cannot query with height < 0; please provide a valid height: invalid request', height: '0' },
  );
});

test('with --pruning custom the states below the kept window answer the SDK pruned-height error', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  // Pruned at 20 (keep 2): heights 18..25 stay. The chain stops at 25, so the latest height is known.
  const node = await startNode(t, bin, home, [
    '--pruning',
    'custom',
    '--pruning-keep-recent',
    '2',
    '--pruning-interval',
    '10',
    '--halt-height',
    '25',
    '--halt-mode',
    'stay',
  ]);
  await node.waitForLog(/block production stopped/);
  const client = new Client(node.addresses.grpc, credentials.createInsecure());
  t.after(() => client.close());
  const comet = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());

  const pruned =
    'codespace sdk code 38: not found: failed to load state at height 17; version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height (latest height: 25)';
  const grpcPruned = await grpcCurrentPlan(client, '17');
  assert.equal(grpcPruned.error?.code, 2);
  assert.equal(grpcPruned.error?.details, pruned);
  const restPruned = await restCurrentPlan(node, '17');
  assert.equal(restPruned.status, 500);
  assert.deepEqual(restPruned.body, { code: 2, message: pruned, details: [] });
  const abciPruned = await comet.abciQuery({ path: currentPlan, data: request, height: 17 });
  assert.equal(abciPruned.code, 38);
  assert.equal(abciPruned.codespace, 'sdk');
  assert.equal(
    abciPruned.log,
    'failed to load state at height 17; version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height (latest height: 25): not found',
  );
  assert.equal(abciPruned.height, 0);

  assert.deepEqual(await grpcCurrentPlan(client, '18'), { plan: '', height: '18' });
  assert.deepEqual(await grpcCurrentPlan(client), { plan: '', height: '25' });
  assert.equal((await new QueryClient(comet).queryAbci(currentPlan, request, 18)).height, 18);
});

test('invalid pruning settings stop the node at start with the SDK messages', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const tooSmall = await cli(bin, ['start', '--home', home, '--pruning', 'custom', '--pruning-keep-recent', '2', '--pruning-interval', '1']);
  assert.equal(tooSmall.code, 1);
  assert.match(
    tooSmall.stderr,
    /invalid custom pruning options: 'pruning-interval' must not be less than 10\. For the most aggressive pruning, select pruning = "everything"/,
  );
  const unknown = await cli(bin, ['start', '--home', home, '--pruning', 'sometimes']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /unknown pruning strategy sometimes/);
  // The same keys in config/app.toml count too (the flags win over them).
  await writeFile(path.join(home, 'config', 'app.toml'), 'pruning = "custom"\npruning-keep-recent = "1"\npruning-interval = "10"\n\n[api]\nenable = true\n');
  const fromFile = await cli(bin, ['start', '--home', home]);
  assert.equal(fromFile.code, 1);
  assert.match(fromFile.stderr, /invalid custom pruning options: 'pruning-keep-recent' must not be less than 2/);
});
