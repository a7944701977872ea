/**
 * The CometBFT RPC as CosmJS reads it over HTTP: Comet38Client (picked by connectComet from the
 * node's version) decodes every method strictly, StargateClient reads heights, blocks and
 * transactions, and unknown methods fail as CometBFT fails them.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { test } from 'node:test';

import { StargateClient } from '@cosmjs/stargate';
import { Comet38Client, connectComet, HttpBatchClient, isComet38Client } from '@cosmjs/tendermint-rpc';

import { cli, proposalIdOf, simFixture, startNode, waitForProposal } from '../support/node-harness.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').toUpperCase();

test('CosmJS Comet38Client and StargateClient read the node over HTTP', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(3);
  const rpcUrl = node.addresses.rpc.replace(/^tcp:/, 'http:');

  // A transaction to look for: the CLI's proposal, committed with broadcast_tx_commit.
  const proposal = await cli(bin, [
    'tx',
    'upgrade',
    'software-upgrade',
    'v2',
    '--title',
    'upgrade v2',
    '--summary',
    'test',
    '--deposit',
    '10000000stake',
    '--upgrade-height',
    '100000',
    '--no-validate',
    '--from',
    'validator',
    '--home',
    home,
    '--yes',
    '--output',
    'json',
  ]);
  assert.equal(proposal.code, 0, proposal.stderr);
  const { txhash, height: txHeightText } = JSON.parse(proposal.stdout) as { txhash: string; height: string };
  const txHeight = Number(txHeightText);
  // The validator votes yes at once; the proposal passes in an end-block, a block-level event.
  await waitForProposal(bin, home, proposalIdOf(proposal.stdout), /PASSED/);

  const client = (await connectComet(rpcUrl)) as Comet38Client;
  t.after(() => client.disconnect());
  assert.ok(isComet38Client(client));

  const status = await client.status();
  assert.equal(status.nodeInfo.network, 'sim-1');
  assert.equal(status.nodeInfo.version, '0.38.12');
  assert.ok(status.syncInfo.latestBlockHeight > txHeight);
  assert.equal(status.syncInfo.catchingUp, false);
  assert.equal(status.validatorInfo.votingPower, 1000000n);

  const info = await client.abciInfo();
  assert.equal(info.data, 'SimApp');
  assert.ok((info.lastBlockHeight ?? 0) > txHeight);
  assert.equal(info.lastBlockAppHash?.length, 32);

  const genesis = await client.genesis();
  assert.equal(genesis.chainId, 'sim-1');
  assert.equal(genesis.consensusParams.block?.maxBytes, 22020096);
  assert.equal(genesis.consensusParams.block?.maxGas, -1);
  assert.deepEqual(genesis.appHash, new Uint8Array());

  const block2 = await client.block(2);
  assert.equal(block2.block.header.height, 2);
  assert.equal(block2.block.header.chainId, 'sim-1');
  assert.equal(block2.block.lastCommit?.height, 1);
  assert.equal(block2.block.lastCommit?.signatures.length, 1);
  assert.deepEqual(block2.block.header.lastBlockId?.hash, (await client.block(1)).blockId.hash);

  const txBlock = await client.block(txHeight);
  assert.equal(txBlock.block.txs.length, 1);
  const results = await client.blockResults(txHeight);
  assert.equal(results.height, txHeight);
  assert.equal(results.results.length, 1);
  assert.equal(results.results[0]?.code, 0);
  assert.ok(results.results[0]?.events.some((e) => e.type === 'submit_proposal'));
  assert.deepEqual((await client.blockResults(2)).results, []);

  const chain = await client.blockchain(1, 3);
  assert.deepEqual(
    chain.blockMetas.map((m) => m.header.height),
    [3, 2, 1],
  );
  assert.ok(chain.lastHeight >= txHeight);

  const commit = await client.commit(2);
  assert.equal(commit.canonical, true);
  assert.equal(commit.header.height, 2);
  assert.equal(commit.commit.height, 2);
  assert.deepEqual(commit.commit.blockId.hash, block2.blockId.hash);
  assert.equal(commit.commit.signatures.length, 1);
  assert.deepEqual(commit.commit.signatures[0]?.validatorAddress, status.validatorInfo.address);

  const validators = await client.validatorsAll();
  assert.equal(validators.total, 1);
  assert.equal(validators.count, 1);
  assert.deepEqual(validators.validators[0]?.address, status.validatorInfo.address);
  assert.deepEqual(validators.validators[0]?.pubkey, status.validatorInfo.pubkey);
  assert.equal(validators.validators[0]?.votingPower, 1000000n);
  assert.ok(validators.blockHeight > status.syncInfo.latestBlockHeight - 1);

  const tx = await client.tx({ hash: Buffer.from(txhash, 'hex') });
  assert.equal(tx.height, txHeight);
  assert.equal(tx.index, 0);
  assert.equal(hex(tx.hash), txhash);
  assert.equal(tx.result.code, 0);
  assert.deepEqual(tx.tx, txBlock.block.txs[0]);

  const byHeight = await client.txSearchAll({ query: `tx.height=${txHeight}` });
  assert.equal(byHeight.totalCount, 1);
  assert.equal(hex(byHeight.txs[0]?.hash ?? new Uint8Array()), txhash);
  assert.equal((await client.txSearch({ query: `tx.hash='${txhash}'` })).totalCount, 1);
  assert.equal((await client.txSearch({ query: `submit_proposal.proposal_id='1'` })).totalCount, 1);
  assert.equal((await client.txSearch({ query: `tx.height=2` })).totalCount, 0);
  const paged = await client.txSearch({ query: `tx.height>=1`, page: 1, per_page: 1, order_by: 'desc' });
  assert.equal(paged.totalCount, 1);
  assert.equal(paged.txs.length, 1);

  const blocks = await client.blockSearch({ query: 'block.height>=2 AND block.height<=4', order_by: 'asc' });
  assert.equal(blocks.totalCount, 3);
  assert.deepEqual(
    blocks.blocks.map((b) => b.block.header.height),
    [2, 3, 4],
  );
  const passed = await client.blockSearch({ query: "active_proposal.proposal_result='proposal_passed'" });
  assert.equal(passed.totalCount, 1);
  const passedHeight = passed.blocks[0]?.block.header.height as number;
  assert.ok(passedHeight > txHeight);
  const endBlock = (await client.blockResults(passedHeight)).finalizeBlockEvents.find((e) => e.type === 'active_proposal');
  assert.deepEqual(endBlock?.attributes, [
    { key: 'proposal_id', value: '1' },
    { key: 'proposal_result', value: 'proposal_passed' },
    { key: 'mode', value: 'EndBlock' },
  ]);
  // An empty block: CometBFT writes the stored response's empty lists as null; CosmJS reads them as [].
  await node.waitForHeight(passedHeight + 1);
  const empty = (await fetch(`${rpcUrl}/block_results?height=${passedHeight + 1}`).then((r) => r.json())) as any;
  assert.equal(empty.result.txs_results, null);
  assert.equal(empty.result.finalize_block_events, null);
  assert.equal(empty.result.validator_updates, null);
  const emptyResults = await client.blockResults(passedHeight + 1);
  assert.deepEqual([emptyResults.results, emptyResults.finalizeBlockEvents], [[], []]);

  const garbage = Buffer.from('not a transaction');
  const rejected = await client.broadcastTxSync({ tx: garbage });
  assert.equal(rejected.code, 2);
  assert.equal(rejected.codespace, 'sdk');
  assert.equal(rejected.log, 'expected 2 wire type, got 6: tx parse error');
  assert.equal(hex(rejected.hash), createHash('sha256').update(garbage).digest('hex').toUpperCase());
  assert.deepEqual((await client.broadcastTxAsync({ tx: garbage })).hash, rejected.hash);
  assert.deepEqual(await client.numUnconfirmedTxs(), { total: 0, totalBytes: 0 });
  assert.equal(await client.health(), null);

  // CosmJS's batching client sends JSON-RPC arrays.
  const batched = Comet38Client.create(new HttpBatchClient(rpcUrl, { batchSizeLimit: 3, dispatchInterval: 5 }));
  t.after(() => batched.disconnect());
  const [batchStatus, batchBlock, batchResults] = await Promise.all([batched.status(), batched.block(2), batched.blockResults(txHeight)]);
  assert.equal(batchStatus.nodeInfo.network, 'sim-1');
  assert.deepEqual(batchBlock.blockId, block2.blockId);
  assert.equal(batchResults.results.length, 1);

  const stargate = await StargateClient.connect(rpcUrl);
  t.after(() => stargate.disconnect());
  assert.equal(await stargate.getChainId(), 'sim-1');
  assert.ok((await stargate.getHeight()) > txHeight);
  const sgBlock = await stargate.getBlock(txHeight);
  assert.equal(sgBlock.header.height, txHeight);
  assert.equal(sgBlock.txs.length, 1);
  const found = await stargate.searchTx(`tx.height=${txHeight}`);
  assert.equal(found.length, 1);
  assert.equal(found[0]?.hash, txhash);
  assert.equal(found[0]?.code, 0);
  assert.equal((await stargate.getTx(txhash))?.height, txHeight);
  assert.deepEqual(await stargate.searchTx([{ key: 'tx.height', value: txHeight }]), found);

  assert.equal((await node.stop()).code, 0);
});

test('RPC errors: unknown methods, websocket-only methods over HTTP, bad heights, missing transactions', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(2);
  const rpcUrl = node.addresses.rpc.replace(/^tcp:/, 'http:');
  const post = async (body: unknown) => {
    const response = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };

  // JSON-RPC: HTTP 200 with the error; CometBFT leaves out an empty `data`.
  assert.deepEqual(await post({ jsonrpc: '2.0', id: 5, method: 'unknown_method', params: {} }), {
    status: 200,
    body: { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'Method not found' } },
  });
  assert.deepEqual((await post({ jsonrpc: '2.0', id: 6, method: 'subscribe', params: { query: "tm.event='NewBlock'" } })).body.error, {
    code: -32601,
    message: 'Method not found',
  });
  // URI: an unknown path is a plain 404; a websocket-only method is a JSON -32601 with HTTP 404.
  const unknown = await fetch(`${rpcUrl}/unknown_method`);
  assert.equal(unknown.status, 404);
  assert.equal(await unknown.text(), '404 page not found\n');
  const subscribe = await fetch(`${rpcUrl}/subscribe?query="tm.event='NewBlock'"`);
  assert.equal(subscribe.status, 404);
  assert.deepEqual(await subscribe.json(), { jsonrpc: '2.0', id: -1, error: { code: -32601, message: 'Method not found' } });

  // Batches answer in order; positional params work.
  const batch = await post([
    { jsonrpc: '2.0', id: 1, method: 'health', params: {} },
    { jsonrpc: '2.0', id: 2, method: 'block', params: ['1'] },
  ]);
  assert.equal(batch.body[0].id, 1);
  assert.deepEqual(batch.body[0].result, {});
  assert.equal(batch.body[1].result.block.header.height, '1');
  // cmtjson takes 64-bit integers only as strings: a JSON number is -32602 before the method runs.
  const numeric = await post([
    { jsonrpc: '2.0', id: 3, method: 'block', params: { height: 3 } },
    { jsonrpc: '2.0', id: 4, method: 'blockchain', params: [1, '2'] },
    { jsonrpc: '2.0', id: 5, method: 'block', params: { height: null } },
  ]);
  assert.deepEqual(numeric.body[0], {
    jsonrpc: '2.0',
    id: 3,
    error: { code: -32602, message: 'Invalid params', data: 'error converting json params to arguments: invalid 64-bit integer encoding "3", expected string' },
  });
  assert.equal(numeric.body[1].error.data, 'error converting json params to arguments: invalid 64-bit integer encoding "1", expected string');
  assert.match(numeric.body[2].result.block.header.height, /^\d+$/);

  const tooHigh = await node.http('rpc', '/block?height=999999');
  assert.equal(tooHigh.status, 500);
  assert.equal(tooHigh.body.error.code, -32603);
  assert.match(tooHigh.body.error.data, /^height 999999 must be less than or equal to the current blockchain height \d+$/);
  assert.equal((await node.http('rpc', '/block?height=0')).body.error.data, 'height must be greater than 0, but got 0');
  const missing = await node.http('rpc', `/tx?hash=0x${'AB'.repeat(32)}`);
  assert.equal(missing.body.error.data, `tx (${'AB'.repeat(32)}) not found`);
  assert.deepEqual((await node.http('rpc', '/net_info')).body.result.peers, []);
  assert.equal((await node.http('rpc', '/net_info')).body.result.n_peers, '0');
  const chunk = (await node.http('rpc', '/genesis_chunked?chunk=0')).body.result;
  assert.equal(chunk.total, '1');
  assert.equal(JSON.parse(Buffer.from(chunk.data, 'base64').toString('utf8')).chain_id, 'sim-1');
  assert.equal((await node.http('rpc', '/consensus_params')).body.result.consensus_params.version.app, '0');
  assert.deepEqual((await node.http('rpc', '/unconfirmed_txs')).body.result, { n_txs: '0', total: '0', total_bytes: '0', txs: [] });
  // A quoted URI argument is the bytes of the string.
  assert.deepEqual((await node.http('rpc', '/check_tx?tx="not a transaction"')).body.result, {
    code: 2,
    data: null,
    log: 'expected 2 wire type, got 6: tx parse error',
    info: '',
    gas_wanted: '0',
    gas_used: '0',
    events: [],
    codespace: 'sdk',
  });

  assert.equal((await node.stop()).code, 0);
});

test('as CometBFT (Go) does, an answer names no Keep-Alive limit, and the connection stays open for the next request', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('genesis'), home);
  const agent = new http.Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  const ports: number[] = [];
  for (let i = 0; i < 2; i++) {
    const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      const request = http.get(`${node.addresses.rpc.replace(/^tcp:/, 'http:')}/status`, { agent }, (response) => {
        ports.push(request.socket?.localPort ?? -1);
        response.resume().on('end', () => resolve(response.headers));
      });
      request.on('error', reject);
    });
    assert.equal(headers['keep-alive'], undefined, 'no Keep-Alive header: a client keeps the connection as its own setting says');
    assert.equal(headers.connection, 'keep-alive');
  }
  assert.equal(ports[0], ports[1], 'the second request went on the first connection');
});
