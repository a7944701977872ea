/**
 * The validator's last signed step, kept as CometBFT's FilePV keeps it (privval/file.go): the file
 * `data/priv_validator_state.json` — `{"height": "<decimal>", "round", "step", "signature",
 * "signbytes"}`, step 1 propose, 2 prevote, 3 precommit — replaced whole BEFORE a signature is
 * returned, and a (height, round, step) behind it refused with CometBFT's own error texts. This is the
 * only double-sign protection of a validator with a local key, and it holds only against the file it
 * finds: a file put back from a backup removes it (issue #28).
 */
import { createPrivateKey, sign } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { sha256 } from '../util/bytes.js';
import { SimError } from '../util/errors.js';
import { readOptional } from '../util/read-optional.js';

/** CometBFT's sign steps (privval stepPropose, stepPrevote, stepPrecommit). */
export const signStep = { propose: 1, prevote: 2, precommit: 3 } as const;

export interface LastSignState {
  height: bigint;
  round: number;
  step: number;
  /** base64; empty when nothing was signed yet. */
  signature: string;
  /** hex; empty when nothing was signed yet. */
  signbytes: string;
}

export function signStatePath(home: string): string {
  return path.join(home, 'data', 'priv_validator_state.json');
}

export function signStateJson(state: LastSignState): string {
  const json: Record<string, unknown> = { height: state.height.toString(), round: state.round, step: state.step };
  if (state.signature !== '') json.signature = state.signature;
  if (state.signbytes !== '') json.signbytes = state.signbytes;
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** What a new home holds: height "0", round 0, step 0 (CometBFT GenFilePV). */
export const zeroSignState: LastSignState = { height: 0n, round: 0, step: 0, signature: '', signbytes: '' };

function parseState(text: string, file: string): LastSignState {
  try {
    const raw = JSON.parse(text) as { height?: unknown; round?: unknown; step?: unknown; signature?: unknown; signbytes?: unknown };
    if (typeof raw.height !== 'string' || !/^\d+$/.test(raw.height)) throw new Error('height is not a decimal string');
    const round = Number(raw.round ?? 0);
    const step = Number(raw.step ?? 0);
    if (!Number.isInteger(round) || round < 0 || !Number.isInteger(step) || step < 0 || step > 3) throw new Error('round or step out of range');
    return {
      height: BigInt(raw.height),
      round,
      step,
      signature: typeof raw.signature === 'string' ? raw.signature : '',
      signbytes: typeof raw.signbytes === 'string' ? raw.signbytes : '',
    };
  } catch (cause) {
    throw new SimError('SIM_SIGN_STATE_INVALID', `error reading PrivValidator state from ${file}: ${(cause as Error).message}`, {
      hint: 'restore the newest priv_validator_state.json this validator wrote; never a zero one for a validator that has signed',
    });
  }
}

/** `init`: the state file of a new home, unless it has one (CometBFT LoadOrGenFilePV). */
export async function ensureSignState(home: string): Promise<void> {
  const file = signStatePath(home);
  if ((await readOptional(file)) !== undefined) return;
  await mkdir(path.dirname(file), { recursive: true });
  await replaceState(file, signStateJson(zeroSignState));
}

/**
 * A temp file renamed over the state: a reader, or a node killed mid-write, sees the old state or the
 * new one, whole. Not fsynced, unlike CometBFT: the simulation has no power cuts, and an fsync per vote
 * waits for the disk's journal, seconds on a loaded test machine, which would stall its blocks.
 */
async function replaceState(file: string, text: string): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  await writeFile(temp, text, { mode: 0o600 });
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** The validator's signer over its key file and its state file. */
export class FilePV {
  private state: LastSignState;
  private readonly file: string;
  private readonly key: ReturnType<typeof createPrivateKey> | undefined;
  private readonly chainId: string;

  private constructor(file: string, state: LastSignState, key: ReturnType<typeof createPrivateKey> | undefined, chainId: string) {
    this.file = file;
    this.state = state;
    this.key = key;
    this.chainId = chainId;
  }

  /** Loads the state file (made at height 0 when the home has none) and the key, if the home has one. */
  static async load(home: string, chainId: string): Promise<FilePV> {
    await ensureSignState(home);
    const file = signStatePath(home);
    const state = parseState((await readOptional(file)) ?? '', file);
    return new FilePV(file, state, await loadKey(home), chainId);
  }

  get last(): LastSignState {
    return this.state;
  }

  /**
   * Signs the vote of (height, round, step) for `blockHash` (privval FilePV.signVote): refused when
   * behind the last signed step; the same step again returns the same signature (a node that restarts
   * at a height it already voted on); otherwise the new state is on disk before the signature returns.
   */
  async signVote(height: number, round: number, step: number, blockHash: string): Promise<string> {
    const h = BigInt(height);
    const last = this.state;
    if (h < last.height) throw new Error(`height regression. Got ${h}, last height ${last.height}`);
    if (h === last.height) {
      if (round < last.round) throw new Error(`round regression at height ${h}. Got ${round}, last round ${last.round}`);
      if (round === last.round) {
        if (step < last.step) throw new Error(`step regression at height ${h} round ${round}. Got ${step}, last step ${last.step}`);
        if (step === last.step && last.signature !== '') {
          const bytes = this.signBytes(height, round, step, blockHash);
          if (bytes !== last.signbytes) throw new Error('conflicting data');
          return last.signature;
        }
      }
    }
    const signbytes = this.signBytes(height, round, step, blockHash);
    const signature = this.sign(Buffer.from(signbytes, 'hex'));
    const next: LastSignState = { height: h, round, step, signature, signbytes };
    await replaceState(this.file, signStateJson(next));
    this.state = next;
    return signature;
  }

  /** The vote's canonical bytes, stood in for by a digest of what a canonical vote holds (no timestamp). */
  private signBytes(height: number, round: number, step: number, blockHash: string): string {
    return sha256('simd/vote', this.chainId, String(height), String(round), String(step), blockHash).toString('hex');
  }

  private sign(bytes: Buffer): string {
    if (this.key === undefined) return Buffer.concat([sha256('simd/sig', bytes), sha256('simd/sig/2', bytes)]).toString('base64');
    return sign(null, bytes, this.key).toString('base64');
  }
}

async function loadKey(home: string): Promise<ReturnType<typeof createPrivateKey> | undefined> {
  const text = await readOptional(path.join(home, 'config', 'priv_validator_key.json'));
  if (text === undefined) return undefined;
  try {
    const value = (JSON.parse(text) as { priv_key?: { value?: unknown } }).priv_key?.value;
    const key = typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
    if (key.length !== 64) return undefined;
    return createPrivateKey({
      format: 'jwk',
      key: { kty: 'OKP', crv: 'Ed25519', d: key.subarray(0, 32).toString('base64url'), x: key.subarray(32).toString('base64url') },
    });
  } catch {
    return undefined; // a key the node cannot read signs with the stand-in (the chain is simulated)
  }
}
