/**
 * Transactions are `cosmos.tx.v1beta1.TxRaw`: CosmJS decodes what `tx_search`, `tx` and a Tx event
 * carry; a vote built with cosmjs-types is accepted and included; a wrong sequence and an exact repeat
 * are refused as the SDK and CometBFT refuse them; the SDK's standard events are searchable.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';

import { decodeTxRaw } from '@cosmjs/proto-signing';
import { StargateClient } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys.js';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov.js';
import { MsgSubmitProposal, MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx.js';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing.js';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx.js';
import { MsgSoftwareUpgrade } from 'cosmjs-types/cosmos/upgrade/v1beta1/tx.js';

import { keyAddress } from '../../src/core/accounts.js';
import { cli, proposeUpgrade, simFixture, startNode, waitFor } from '../support/node-harness.js';

const validator = keyAddress('validator');
const alice = keyAddress('alice');

/** A MsgVote transaction of `voter`, built with cosmjs-types only (a placeholder key and signature). */
function voteTx(voter: string, proposalId: bigint, sequence: bigint): Uint8Array {
  const bodyBytes = TxBody.encode(
    TxBody.fromPartial({
      messages: [{ typeUrl: MsgVote.typeUrl, value: MsgVote.encode({ proposalId, voter, option: VoteOption.VOTE_OPTION_YES, metadata: '' }).finish() }],
    }),
  ).finish();
  const authInfoBytes = AuthInfo.encode(
    AuthInfo.fromPartial({
      signerInfos: [
        {
          publicKey: { typeUrl: '/cosmos.crypto.secp256k1.PubKey', value: PubKey.encode({ key: new Uint8Array(33).fill(2) }).finish() },
          modeInfo: { single: { mode: SignMode.SIGN_MODE_DIRECT } },
          sequence,
        },
      ],
      fee: { amount: [], gasLimit: 150_000n },
    }),
  ).finish();
  return TxRaw.encode({ bodyBytes, authInfoBytes, signatures: [new Uint8Array(64).fill(7)] }).finish();
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').toUpperCase();

/** Disconnects a CosmJS websocket client and clears the reconnect its socket schedules on disconnect. */
function disconnect(client: { disconnect(): void }): void {
  client.disconnect();
  const socket = (client as unknown as { client?: { socket?: { reconnectTimeout?: NodeJS.Timeout | null } } }).client?.socket;
  if (socket?.reconnectTimeout) clearTimeout(socket.reconnectTimeout);
}

test('CosmJS decodes the node transactions; a cosmjs-types vote is accepted; wrong sequences and repeats are refused', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome(['--voting-period', '1h', '--deposit-period', '1h']);
  const bin = fx.bin('genesis');
  const node = await startNode(t, bin, home);
  await node.waitForHeight(1);
  const rpcUrl = node.addresses.rpc.replace(/^tcp:/, 'http:');
  const stargate = await StargateClient.connect(rpcUrl);
  t.after(() => stargate.disconnect());

  const { id } = await proposeUpgrade(bin, home, { name: 'v2', height: (await node.height()) + 10_000, extra: ['--no-validate'] });

  // tx_search by baseapp's message.action finds the proposal; its bytes are a TxRaw CosmJS decodes.
  const [found, ...others] = await stargate.searchTx(`message.action='/cosmos.gov.v1.MsgSubmitProposal'`);
  assert.equal(others.length, 0);
  assert.ok(found !== undefined);
  assert.equal(found.hash, hex(createHash('sha256').update(found.tx).digest()));
  const decoded = decodeTxRaw(found.tx);
  assert.equal(decoded.body.messages[0]?.typeUrl, '/cosmos.gov.v1.MsgSubmitProposal');
  const submit = MsgSubmitProposal.decode(decoded.body.messages[0]?.value ?? new Uint8Array());
  assert.equal(submit.proposer, validator);
  assert.deepEqual(submit.initialDeposit, [{ denom: 'stake', amount: '10000000' }]);
  assert.equal(submit.messages[0]?.typeUrl, '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade');
  assert.equal(MsgSoftwareUpgrade.decode(submit.messages[0]?.value ?? new Uint8Array()).plan?.name, 'v2');
  assert.equal(decoded.authInfo.signerInfos[0]?.sequence, 0n);
  assert.equal(decoded.authInfo.signerInfos[0]?.publicKey?.typeUrl, '/cosmos.crypto.secp256k1.PubKey');
  assert.equal(decoded.authInfo.fee?.gasLimit, 200_000n);
  assert.equal(decoded.signatures.length, 1);
  assert.equal(found.gasWanted, 200_000n);
  assert.ok(found.gasUsed > 0n && found.gasUsed <= found.gasWanted);
  const attrs = (type: string) => found.events.filter((e) => e.type === type).map((e) => Object.fromEntries(e.attributes.map((a) => [a.key, a.value])));
  assert.deepEqual(attrs('tx')[1], { acc_seq: `${validator}/0` });
  assert.deepEqual(attrs('message')[0], { action: '/cosmos.gov.v1.MsgSubmitProposal', sender: validator, module: 'gov', msg_index: '0' });
  assert.deepEqual(attrs('submit_proposal'), [
    { proposal_id: id, proposal_messages: ',/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade', msg_index: '0' },
    { voting_period_start: id, msg_index: '0' },
  ]);
  assert.equal(attrs('active_proposal').length, 0);

  // getTx gives the same bytes.
  const byHash = await stargate.getTx(found.hash);
  assert.equal(decodeTxRaw(byHash?.tx ?? new Uint8Array()).body.messages[0]?.typeUrl, '/cosmos.gov.v1.MsgSubmitProposal');

  // A vote built with cosmjs-types, broadcast with broadcast_tx_sync, arrives in a Tx event.
  const ws = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'ws:'));
  t.after(() => disconnect(ws));
  const event = new Promise<{ tx: Uint8Array; hash: Uint8Array; result: { code: number } }>((resolve, reject) => {
    const subscription = ws.subscribeTx().subscribe({
      next: (e) => {
        queueMicrotask(() => subscription.unsubscribe());
        resolve(e);
      },
      error: reject,
      complete: () => undefined,
    });
  });
  // The Tx subscription is taken before the vote is sent: a NewBlockHeader subscribed after it on the
  // same socket answers only once the server has processed both (without this, a vote included before
  // the Tx subscription was in place was never seen and the test waited for ever).
  await new Promise<void>((resolve, reject) => {
    const headers = ws.subscribeNewBlockHeader().subscribe({
      next: () => {
        queueMicrotask(() => headers.unsubscribe());
        resolve();
      },
      error: reject,
      complete: () => undefined,
    });
  });
  const vote = voteTx(validator, BigInt(id), 1n);
  const comet = await Comet38Client.connect(rpcUrl);
  t.after(() => comet.disconnect());
  const sync = await comet.broadcastTxSync({ tx: vote });
  assert.equal(sync.code, 0, sync.log);
  assert.equal(hex(sync.hash), hex(createHash('sha256').update(vote).digest()));
  const received = await event;
  assert.equal(hex(received.hash), hex(sync.hash));
  assert.equal(received.result.code, 0);
  const voteDecoded = decodeTxRaw(received.tx);
  assert.equal(MsgVote.decode(voteDecoded.body.messages[0]?.value ?? new Uint8Array()).voter, validator);
  const included = await waitFor(async () => (await stargate.getTx(hex(sync.hash))) ?? undefined, 'the vote in a block');
  assert.equal(included.code, 0, included.rawLog);
  assert.equal(included.gasWanted, 150_000n);

  // The exact same bytes again: CometBFT's mempool cache.
  await assert.rejects(comet.broadcastTxSync({ tx: vote }), /tx already exists in cache/);
  // A fresh transaction with a stale sequence: the SDK's sigverify.
  const stale = await comet.broadcastTxSync({ tx: voteTx(validator, BigInt(id), 7n) });
  assert.deepEqual([stale.code, stale.codespace, stale.log], [32, 'sdk', 'account sequence mismatch, expected 2, got 7: incorrect account sequence']);

  // The CLI reads the sequence: two identical votes from it are two transactions.
  const first = await cli(bin, ['tx', 'gov', 'vote', id, 'yes', '--from', 'alice', '--home', home]);
  const second = await cli(bin, ['tx', 'gov', 'vote', id, 'yes', '--from', 'alice', '--home', home]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(second.code, 0, second.stderr);
  assert.notEqual(JSON.parse(first.stdout).txhash, JSON.parse(second.stdout).txhash);
  const aliceTxs = await stargate.searchTx(`message.sender='${alice}'`);
  assert.deepEqual(
    aliceTxs.map((tx) => decodeTxRaw(tx.tx).authInfo.signerInfos[0]?.sequence),
    [0n, 1n],
  );
  assert.equal((await node.stop()).code, 0);
});

test('undecodable bytes are the SDK decoder reason followed by tx parse error', async (t) => {
  const fx = await simFixture(t);
  const home = await fx.initHome();
  const node = await startNode(t, fx.bin('genesis'), home);
  await node.waitForHeight(1);
  const comet = await Comet38Client.connect(node.addresses.rpc.replace(/^tcp:/, 'http:'));
  t.after(() => comet.disconnect());
  const json = await comet.broadcastTxSync({ tx: Buffer.from(JSON.stringify({ body: { messages: [] } })) });
  assert.deepEqual([json.code, json.codespace, json.log], [2, 'sdk', 'expected 2 wire type, got 3: tx parse error']);
  // A TxRaw whose message type the node does not know.
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages: [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: new Uint8Array() }] })).finish();
  const unknown = await comet.broadcastTxSync({ tx: TxRaw.encode({ bodyBytes, authInfoBytes: new Uint8Array(), signatures: [] }).finish() });
  assert.deepEqual([unknown.code, unknown.log], [2, 'unable to resolve type URL /cosmos.bank.v1beta1.MsgSend: tx parse error']);
  assert.equal((await node.stop()).code, 0);
});
