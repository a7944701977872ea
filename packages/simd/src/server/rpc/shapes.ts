/**
 * JSON renderings of CometBFT and ABCI types that several methods and events share, field for field
 * as CometBFT 0.38 writes them: ABCI results through jsonpb with defaults (`data: null`, `events: []`,
 * 64-bit integers as strings), CometBFT types through its own encoder.
 */
import type { CheckResult } from '../../chain/app.js';
import type { SetValidator } from '../../chain/validator-set.js';
import type { Event } from '../../core/msg.js';

/** ABCI events; the SDK marks every attribute for indexing. */
export function abciEvents(events: readonly Event[]): unknown[] {
  return events.map((e) => ({ type: e.type, attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: true })) }));
}

/** What a transaction's result is built from. */
export interface TxResultFields {
  code: number;
  log: string;
  codespace: string;
  events: readonly Event[];
  gas_wanted?: string;
  gas_used?: string;
}

/** `abci.ExecTxResult` (also the empty one of a transaction that never ran). */
export function execTxResult(result?: TxResultFields): unknown {
  return {
    code: result?.code ?? 0,
    data: null,
    log: result?.log ?? '',
    info: '',
    gas_wanted: result?.gas_wanted ?? '0',
    gas_used: result?.gas_used ?? '0',
    events: abciEvents(result?.events ?? []),
    codespace: result?.codespace ?? '',
  };
}

/**
 * The same result inside a Tx event: there CometBFT's encoder reaches it by value, not through its
 * jsonpb marshaller, so zero fields are left out (a successful transaction has no `code`).
 */
export function execTxResultInEvent(result: TxResultFields): unknown {
  const events = result.events.map((e) => (e.attributes.length === 0 ? { type: e.type } : abciEvents([e])[0]));
  return {
    ...(result.code === 0 ? {} : { code: result.code }),
    ...(result.log === '' ? {} : { log: result.log }),
    ...((result.gas_wanted ?? '0') === '0' ? {} : { gas_wanted: result.gas_wanted }),
    ...((result.gas_used ?? '0') === '0' ? {} : { gas_used: result.gas_used }),
    ...(events.length === 0 ? {} : { events }),
    ...(result.codespace === '' ? {} : { codespace: result.codespace }),
  };
}

/** `abci.ResponseCheckTx`. */
export function checkTxResult(check: CheckResult): unknown {
  return {
    code: check.code,
    data: null,
    log: check.log,
    info: '',
    gas_wanted: check.gasWanted ?? '0',
    gas_used: check.gasUsed ?? '0',
    events: [],
    codespace: check.codespace,
  };
}

export function pubKeyJson(pubKey: Buffer): { type: string; value: string } {
  return { type: 'tendermint/PubKeyEd25519', value: pubKey.toString('base64') };
}

/** `types.Validator` of the set (`validators`, `dump_consensus_state`). */
export function validatorJson(v: SetValidator): unknown {
  return {
    address: v.address,
    pub_key: { type: 'tendermint/PubKeyEd25519', value: v.pubKey.toString('base64') },
    voting_power: v.power.toString(),
    proposer_priority: '0',
  };
}

/** `types.ConsensusParams`: CometBFT's defaults, which `simd init` writes, with the app version. */
export function consensusParams(appVersion: number): unknown {
  return {
    block: { max_bytes: '22020096', max_gas: '-1' },
    evidence: { max_age_num_blocks: '100000', max_age_duration: '172800000000000', max_bytes: '1048576' },
    validator: { pub_key_types: ['ed25519'] },
    version: { app: String(appVersion) },
    abci: { vote_extensions_enable_height: '0' },
  };
}

/** The protobuf `ConsensusParams` the SDK returns from every FinalizeBlock (zero fields left out). */
export function consensusParamUpdates(appVersion: number): unknown {
  return {
    block: { max_bytes: '22020096', max_gas: '-1' },
    evidence: { max_age_num_blocks: '100000', max_age_duration: '172800000000000', max_bytes: '1048576' },
    validator: { pub_key_types: ['ed25519'] },
    version: appVersion === 0 ? {} : { app: String(appVersion) },
    abci: {},
  };
}
