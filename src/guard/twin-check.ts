/**
 * The twin check (issue #32, docs/double-sign.md): never two signers. A validator is slashed and
 * tombstoned when its key signs twice, and that most often happens because a second machine runs the
 * same key — a failover node started while the primary was only slow, an old VM back after a
 * migration, a restored snapshot, a key copied onto a spare. chainvisor knows the last height this
 * home signed (`priv_validator_state.json`, which CometBFT writes before a signature leaves the
 * node): a signature of this validator on the network above it was made elsewhere.
 * Why, and the rest of its rules: docs/design/double-sign.md#guardtwincheckts.
 */
import { cachedChainId, createNetworkReader, NetworkRpcError } from '../chain/index.js';
import { type Config, networkRpcUrls } from '../config/index.js';
import { ChainvisorError } from '../shared/errors/index.js';
import type { EventBus, TwinCheckReport } from '../shared/events/index.js';
import type { Logger } from '../shared/log.js';
import { createHttpClient, type HttpClient } from '../shared/net/index.js';
import type { HomePaths } from './home-paths.js';
import { type NodeSigning, nodeSigning, readSignStateFile } from './sign-state.js';
import { logTwinEvents } from './twin-log.js';
import { keyInUseError, reportOf, type TwinContext } from './twin-report.js';
import { TwinScan } from './twin-scan.js';
import { waitBlocks, watchWhileRunning } from './twin-watch.js';
import { readValidatorAddress } from './validator-key.js';

/**
 * The connection to the network RPC is kept between readings (one every block, 1–10 s): opening one per
 * reading cost more CPU than the reading. Less than CometBFT's own idle limit (its read timeout, 10 s),
 * so the server does not close a connection as it is used; a server that says less is believed.
 */
const keepAliveMs = 9000;

export interface TwinCheckOptions {
  layout: HomePaths;
  logger: Logger;
  events: EventBus;
  config: Pick<Config, 'networkRpc' | 'twinCheck' | 'twinBlocks' | 'twinTimeout' | 'twinWait'>;
  /** Where the proxy variables and SSL_CERT_FILE/SSL_CERT_DIR are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface TwinCheck {
  /**
   * Before a start of the node. `first`: the first start of a `run`, not after an upgrade (the start
   * CHAINVISOR_TWIN_WAIT applies to). Throws CHAINVISOR_KEY_IN_USE or CHAINVISOR_TWIN_UNCHECKED (84), or
   * CHAINVISOR_NETWORK_RPC_OTHER_CHAIN (78); returns at once when `signal` aborts (chainvisor stops).
   */
  beforeStart(options: { first: boolean; signal: AbortSignal }): Promise<void>;
  /** While the node runs, until `exited` settles: a twin seen stops it through `onKeyInUse`. */
  watch(exited: Promise<unknown>, onKeyInUse: (error: ChainvisorError) => void): void;
  /** Ends a reading under way and closes the connections. */
  close(): Promise<void>;
}

export function createTwinCheck(options: TwinCheckOptions): TwinCheck {
  const { layout, logger, events, config } = options;
  // CHAINVISOR_NETWORK_RPC, parsed once per run (the settings' check refused a bad one: exit 78).
  const parsed = networkRpcUrls(config.networkRpc);
  const urls = parsed.ok ? parsed.value : [];
  const unlog = logTwinEvents(events, logger);
  const chainIdOf = cachedChainId();
  let client: HttpClient | undefined;
  let context: TwinContext | undefined;
  /** The start check found the network to watch (clear, or unchecked: the RPC may come back). */
  let watching = false;
  const stop = new AbortController();
  let pending: Promise<void> = Promise.resolve();
  /** The reading under way of the last node's watch: a start waits for it (one scan, one reader at a time). */
  let watchReading: () => Promise<void> = () => Promise.resolve();

  /** When the check under way began: a finding at a start says what the check added to it (`ms`; bench:twin reads it). */
  let began = 0;
  const emit: TwinContext['report'] = (event, report, data = {}) => {
    const ms = data.during === 'start' ? { ms: Math.round((performance.now() - began) * 10) / 10 } : {};
    events.emit(event, { text: textOf(event, report, data), data: { ...report, ...data, ...ms } });
  };

  /** The context for this key and chain: the network's memory (its scan) is kept while both stay the same. */
  const contextFor = (signing: NodeSigning, address: string, chainId: string): TwinContext => {
    let scan = context?.address === address && context.scan.chainId === chainId ? context.scan : undefined;
    if (scan === undefined) {
      client ??= createHttpClient({ timeoutMs: config.twinTimeout, keepAliveMs, ...(options.env === undefined ? {} : { env: options.env }) });
      const readers = urls.map((url) => createNetworkReader({ url, client: client as HttpClient, timeoutMs: config.twinTimeout }));
      scan = new TwinScan({ readers, address, chainId, blocks: config.twinBlocks });
    }
    const localHeight = async (): Promise<number> => {
      const point = await readSignStateFile(signing.stateFile);
      return point === 'missing' ? 0 : Number(point.height);
    };
    context = { signing, address, scan, config, logger, report: emit, localHeight };
    return context;
  };

  /** No check could be made: a warning (and a start), or with `require` no start; never a stop while the node runs. */
  const unchecked = (ctx: TwinContext | undefined, base: Partial<TwinCheckReport>, reason: string, during: 'start' | 'wait' | 'running'): void => {
    const refused = config.twinCheck === 'require' && during !== 'running';
    emit('twin-unchecked', reportOf('unchecked', { ...base, reason }), { refused, during });
    if (refused) {
      throw new ChainvisorError(
        'CHAINVISOR_TWIN_UNCHECKED',
        `cannot check that this validator's key${ctx === undefined ? '' : ` (${ctx.address})`} signs nowhere else: ${reason}; with CHAINVISOR_TWIN_CHECK=require the node was not started`,
      );
    }
  };

  async function check(first: boolean, signal: AbortSignal): Promise<void> {
    began = performance.now();
    watching = false;
    if (config.twinCheck === 'off') return emit('twin-checked', reportOf('off', { reason: 'CHAINVISOR_TWIN_CHECK=off' }), { why: 'setting' });
    const signing = await nodeSigning(layout.home, layout.dataDir);
    if (signing.remoteSigner !== '') {
      const reason = `config.toml names a remote signer (${signing.remoteSigner}); it keeps the signing state and guards it`;
      return emit('twin-checked', reportOf('off', { reason }), { why: 'remote-signer' });
    }
    const key = await readValidatorAddress(signing.keyFile);
    if (key.status === 'missing') return emit('twin-checked', reportOf('off', { reason: `no validator key at ${key.file}` }), { why: 'no-key' });
    if (key.status === 'unreadable') return unchecked(undefined, {}, `cannot read this validator's address from ${key.file}: ${key.reason}`, 'start');
    if (urls.length === 0) {
      const point = await readSignStateFile(signing.stateFile);
      const signed = point !== 'missing' && point.height > 0n;
      return emit('twin-checked', reportOf('off', { address: key.address, reason: 'CHAINVISOR_NETWORK_RPC is not set' }), { why: 'no-rpc', signed });
    }
    const ctx = contextFor(signing, key.address, await chainIdOf(signing.genesisFile));
    const { scan } = ctx;
    const deadline = AbortSignal.any([signal, stop.signal, AbortSignal.timeout(config.twinTimeout)]);
    let failure: string | undefined;
    let range: { rpc: string; fromHeight: number; toHeight: number } | undefined;
    try {
      const result = await scan.read(deadline);
      range = { rpc: result.rpc, fromHeight: result.fromHeight, toHeight: result.toHeight };
      failure = result.failure;
      // Its own signatures in the commits say it is in the set; only an address never seen is looked up.
      if (failure === undefined && scan.seenHeight === undefined && !(await scan.inValidatorSet(result.toHeight, deadline))) {
        const reason = `${key.address} is not in the validator set at height ${result.toHeight} on ${result.rpc}`;
        return emit('twin-checked', reportOf('off', { ...range, address: key.address, reason }), { why: 'not-in-set', during: 'start' });
      }
    } catch (error) {
      if (!(error instanceof NetworkRpcError)) throw error;
      failure = error.message;
    }
    // After the network: CometBFT writes the state before a signature leaves, so a signature the
    // network shows that this home made is at or below what is read now.
    const local = await ctx.localHeight();
    const base = { ...(range ?? { rpc: scan.rpc }), address: key.address, localHeight: local };
    if (scan.seenHeight !== undefined && scan.seenHeight > local) {
      const found = reportOf('key-in-use', { ...base, seenHeight: scan.seenHeight });
      emit('key-in-use', found, { during: 'start' });
      throw keyInUseError(found, ctx.signing.stateFile, 'the node was not started');
    }
    if (signal.aborted) return;
    watching = true;
    if (failure !== undefined)
      return unchecked(ctx, base, `the network RPCs could not be read within ${config.twinTimeout} ms (CHAINVISOR_TWIN_TIMEOUT): ${failure}`, 'start');
    emit('twin-checked', reportOf('clear', { ...base, ...(scan.seenHeight === undefined ? {} : { seenHeight: scan.seenHeight }) }), { during: 'start' });
    if (first && config.twinWait > 0 && range !== undefined)
      await waitBlocks(ctx, range.toHeight, AbortSignal.any([signal, stop.signal]), (reason) => unchecked(ctx, base, reason, 'wait'));
  }

  return {
    beforeStart({ first, signal }) {
      const run = watchReading().then(() => check(first, signal));
      pending = run.catch(() => undefined);
      return run;
    },
    watch(exited, onKeyInUse) {
      if (!watching || context === undefined) return;
      watchReading = watchWhileRunning(context, {
        exited,
        stop: stop.signal,
        onKeyInUse,
        unchecked: (reason) => unchecked(context, { rpc: context?.scan.rpc ?? null }, reason, 'running'),
      });
    },
    async close() {
      stop.abort();
      // The HTTP client first: a reading of the watch waiting on a silent RPC ends at once.
      await Promise.all([pending, client?.close()]);
      await watchReading();
      unlog();
    },
  };
}

/** The event's sentence: logs, webhooks and chat channels show it. */
function textOf(event: string, r: TwinCheckReport, data: Record<string, unknown>): string {
  if (event === 'key-in-use')
    return `this validator's key (${r.address ?? '?'}) signed block ${r.seenHeight ?? '?'} on the network (${r.rpc ?? '?'}), above height ${r.localHeight ?? '?'}, the last this home signed: another machine runs it; ${data.during === 'running' ? 'the node is stopped' : 'the node is not started'}`;
  if (event === 'twin-unchecked')
    return `twin check not made: ${r.reason ?? 'the network could not be asked'}; ${data.refused === true ? 'CHAINVISOR_TWIN_CHECK=require: the node is not started' : data.during === 'running' ? 'the node keeps running, unwatched until the network answers' : 'starting the node without it'}`;
  if (r.state === 'off') return `twin check off: ${r.reason ?? ''}`;
  return `twin check clear: no signature of this validator above height ${r.localHeight ?? '?'} in blocks ${r.fromHeight ?? '?'}–${r.toHeight ?? '?'} on ${r.rpc ?? '?'}`;
}
