/**
 * The twin check's log lines, as a listener of the event bus (the model is shared/event-log.ts):
 * the check emits key-in-use, twin-unchecked and twin-checked once each, where it finds them, and the
 * log follows them as status, metrics and webhooks do.
 */
import type { EventBus } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';

/** What CHAINVISOR_NETWORK_RPC protects against, said at each start of a validator without it. */
const withoutRpc =
  "CHAINVISOR_NETWORK_RPC is not set: chainvisor cannot see this validator's key signing on another machine (a failover node started while this one was only slow, an old VM back after a migration, a restored snapshot, a copied key) before it starts the node, nor while it runs — a double-sign, slashed and tombstoned; set it to one or more RPCs of this chain (docs/double-sign.md)";

/** Logs each finding of the twin check at its level; returns the unsubscribe. */
export function logTwinEvents(events: EventBus, logger: Logger): () => void {
  return events.on((e) => {
    const data = e.data ?? {};
    const fields = {
      event: e.event,
      ...(typeof data.rpc === 'string' ? { rpc: data.rpc } : {}),
      ...(typeof data.address === 'string' ? { address: data.address } : {}),
      ...(typeof data.seenHeight === 'number' ? { seenHeight: data.seenHeight } : {}),
      ...(typeof data.localHeight === 'number' ? { localHeight: data.localHeight } : {}),
      ...(typeof data.toHeight === 'number' ? { fromHeight: data.fromHeight, toHeight: data.toHeight } : {}),
      ...(typeof data.ms === 'number' ? { ms: data.ms } : {}),
    };
    switch (e.event) {
      case 'key-in-use':
        logger.error({ ...fields, code: 'CHAINVISOR_KEY_IN_USE' }, e.text);
        return;
      case 'twin-unchecked':
        logger[data.refused === true ? 'error' : 'warn'](fields, e.text);
        return;
      case 'twin-checked':
        if (data.why === 'setting')
          logger.warn(
            { ...fields, setting: 'CHAINVISOR_TWIN_CHECK' },
            `${e.text}: the node is started without looking for its key on other machines (a double-sign risk)`,
          );
        else if (data.why === 'no-rpc') logger[data.signed === true ? 'warn' : 'debug']({ ...fields, setting: 'CHAINVISOR_NETWORK_RPC' }, withoutRpc);
        // A node with no key of its own signs nothing: not worth a line at each start.
        else if (data.why === 'no-key') logger.debug(fields, e.text);
        // While the node runs a clear reading is a quiet line, unless the RPC answers again after an outage.
        else logger[data.during === 'running' && data.back !== true ? 'debug' : 'info'](fields, e.text);
        return;
      default:
    }
  });
}
