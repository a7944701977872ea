/**
 * Event subscriptions (CometBFT's event bus and rpc/core/events.go): clients subscribe with a query;
 * after each commit the node publishes NewBlock, NewBlockHeader, NewBlockEvents and one Tx event per
 * transaction, and every subscription whose query matches receives
 * `{"query":…,"data":{"type":"tendermint/event/…","value":…},"events":{…}}` under its subscribe id.
 * State with a lifecycle (the subscriptions), hence a class.
 */
import { type BlockRecord, cometBlockBody } from '../../chain/block.js';
import type { RpcBackend } from './backend.js';
import { finalizeBlockResponse } from './blocks.js';
import { failure, type RpcId, type RpcResponse, serverError, success } from './jsonrpc.js';
import { type Condition, type EventMap, flattenEvents, matches, parseQuery, queryKey } from './query.js';
import { execTxResultInEvent } from './shapes.js';
import { txEventMap } from './txs.js';

/** CometBFT's defaults: max_subscription_clients, max_subscriptions_per_client, the query length limit. */
const maxClients = 100;
const maxPerClient = 5;
const maxQueryLength = 512;

export interface EventMessage {
  data: { type: string; value: unknown };
  events: EventMap;
}

interface Subscription {
  query: string;
  conditions: Condition[];
  id: RpcId;
}

interface Client {
  send(response: RpcResponse): void;
  subscriptions: Map<string, Subscription>;
}

export class EventBus {
  private readonly clients = new Map<object, Client>();

  subscribe(key: object, send: Client['send'], query: string, id: RpcId): void {
    const client = this.clients.get(key);
    if (client === undefined && this.clients.size >= maxClients) throw new Error(`max_subscription_clients ${maxClients} reached`);
    if (client !== undefined && client.subscriptions.size >= maxPerClient) throw new Error(`max_subscriptions_per_client ${maxPerClient} reached`);
    if (query.length > maxQueryLength) throw new Error('maximum query length exceeded');
    const conditions = parseQuery(query);
    if (client?.subscriptions.has(queryKey(conditions))) throw new Error('already subscribed');
    const entry = client ?? { send, subscriptions: new Map() };
    entry.subscriptions.set(queryKey(conditions), { query, conditions, id });
    this.clients.set(key, entry);
  }

  unsubscribe(key: object, query: string): void {
    const conditions = parseQuery(query);
    const client = this.clients.get(key);
    if (client === undefined || !client.subscriptions.delete(queryKey(conditions))) throw new Error('subscription not found');
    if (client.subscriptions.size === 0) this.clients.delete(key);
  }

  unsubscribeAll(key: object): void {
    if (!this.clients.delete(key)) throw new Error('subscription not found');
  }

  /** A connection went away: its subscriptions end silently. */
  drop(key: object): void {
    this.clients.delete(key);
  }

  /** The node is stopping: every subscription is told, as CometBFT tells it. */
  close(): void {
    for (const client of this.clients.values()) {
      for (const sub of client.subscriptions.values()) client.send(failure(sub.id, serverError('subscription was canceled (reason: CometBFT exited)')));
    }
    this.clients.clear();
  }

  /** True when nobody listens (publishing can be skipped). */
  get idle(): boolean {
    return this.clients.size === 0;
  }

  publish(messages: readonly EventMessage[]): void {
    for (const message of messages) {
      for (const client of this.clients.values()) {
        for (const sub of client.subscriptions.values()) {
          if (matches(sub.conditions, message.events)) client.send(success(sub.id, { query: sub.query, data: message.data, events: message.events }));
        }
      }
    }
  }
}

/** What a committed block publishes, in CometBFT's order (state/execution.go fireEvents). */
export async function blockEvents(backend: RpcBackend, block: BlockRecord): Promise<EventMessage[]> {
  const response = await finalizeBlockResponse(backend, block);
  const { header } = block;
  const messages: EventMessage[] = [
    {
      data: {
        type: 'tendermint/event/NewBlock',
        value: {
          block: cometBlockBody(block),
          block_id: block.block_id,
          // CometBFT's encoder leaves out the empty lists of ResponseFinalizeBlock.
          result_finalize_block: {
            ...(response.events.length === 0 ? {} : { events: response.events }),
            ...(response.tx_results.length === 0 ? {} : { tx_results: response.tx_results }),
            validator_updates: response.validator_updates,
            consensus_param_updates: response.consensus_param_updates,
            app_hash: response.app_hash,
          },
        },
      },
      events: { ...flattenEvents(block.events ?? []), 'tm.event': ['NewBlock'] },
    },
    { data: { type: 'tendermint/event/NewBlockHeader', value: { header } }, events: { 'tm.event': ['NewBlockHeader'] } },
    {
      data: { type: 'tendermint/event/NewBlockEvents', value: { height: header.height, events: null, num_txs: block.num_txs } },
      events: { 'tm.event': ['NewBlockEvents'] },
    },
  ];
  block.results.forEach((result, index) => {
    const txResult = { height: header.height, ...(index === 0 ? {} : { index }), tx: block.txs[index], result: execTxResultInEvent(result) };
    messages.push({ data: { type: 'tendermint/event/Tx', value: { TxResult: txResult } }, events: txEventMap(result, header.height) });
  });
  return messages;
}
