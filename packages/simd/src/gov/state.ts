/** The gov module's store (`s/gov/`): params, proposals (JSON), their votes (weighted options, JSON) and deposits. */
import type { KVReader, KVStore } from '../store/kv.js';
import { readUint64BE, uint64BE } from '../util/bytes.js';
import { addCoins, type Coin } from '../util/coins.js';
import { fullWeight, type GovParams, type Proposal, type VoteOption, type WeightedVoteOption } from './types.js';

export const govStorePrefix = 's/gov/';

const paramsKey = Buffer.from('params');
const nextIdKey = Buffer.from('next_id');
const proposalPrefix = Buffer.from('p/');
const votePrefix = Buffer.from('v/');
const depositPrefix = Buffer.from('d/');

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

export async function getParams(kv: KVReader): Promise<GovParams> {
  const bytes = await kv.get(paramsKey);
  if (bytes === undefined) throw new Error('gov params are missing from the store');
  return JSON.parse(bytes.toString('utf8')) as GovParams;
}

export function setParams(kv: KVStore, params: GovParams): void {
  kv.set(paramsKey, json(params));
}

export async function nextProposalId(kv: KVStore): Promise<number> {
  const bytes = await kv.get(nextIdKey);
  const id = bytes === undefined ? 1 : Number(readUint64BE(bytes));
  kv.set(nextIdKey, uint64BE(id + 1));
  return id;
}

const proposalKey = (id: number | string) => Buffer.concat([proposalPrefix, uint64BE(BigInt(id))]);

export async function getProposal(kv: KVReader, id: number | string): Promise<Proposal | undefined> {
  const bytes = await kv.get(proposalKey(id));
  return bytes === undefined ? undefined : (JSON.parse(bytes.toString('utf8')) as Proposal);
}

export function setProposal(kv: KVStore, proposal: Proposal): void {
  kv.set(proposalKey(proposal.id), json(proposal));
}

export async function deleteProposal(kv: KVStore, id: string): Promise<void> {
  kv.delete(proposalKey(id));
  await deleteVotes(kv, id);
  await deleteDeposits(kv, id);
}

export async function deleteVotes(kv: KVStore, id: string): Promise<void> {
  for (const [key] of await kv.range(Buffer.concat([votePrefix, uint64BE(BigInt(id))]))) kv.delete(key);
}

export async function allProposals(kv: KVReader): Promise<Proposal[]> {
  return (await kv.range(proposalPrefix)).map(([, value]) => JSON.parse(value.toString('utf8')) as Proposal);
}

export interface StoredVote {
  voter: string;
  options: WeightedVoteOption[];
}

export function setVote(kv: KVStore, id: string, voter: string, options: readonly WeightedVoteOption[]): void {
  kv.set(Buffer.concat([votePrefix, uint64BE(BigInt(id)), Buffer.from(voter)]), json(options));
}

/** A vote stored before votes were weighted is its option's name: the whole weight on it. */
function voteOptionsOf(value: Buffer): WeightedVoteOption[] {
  const text = value.toString('utf8');
  return text.startsWith('[') ? (JSON.parse(text) as WeightedVoteOption[]) : [{ option: text as VoteOption, weight: fullWeight }];
}

export async function getVotes(kv: KVReader, id: string): Promise<StoredVote[]> {
  const prefix = Buffer.concat([votePrefix, uint64BE(BigInt(id))]);
  return (await kv.range(prefix)).map(([key, value]) => ({ voter: key.subarray(prefix.length).toString('utf8'), options: voteOptionsOf(value) }));
}

const depositKey = (id: string, depositor: string) => Buffer.concat([depositPrefix, uint64BE(BigInt(id)), Buffer.from(depositor)]);

/** Adds to what `depositor` deposited on proposal `id` (x/gov keeps one record per depositor). */
export async function addDeposit(kv: KVStore, id: string, depositor: string, amount: readonly Coin[]): Promise<void> {
  const bytes = await kv.get(depositKey(id, depositor));
  const before = bytes === undefined ? [] : (JSON.parse(bytes.toString('utf8')) as Coin[]);
  kv.set(depositKey(id, depositor), json(addCoins(before, amount)));
}

export async function getDeposits(kv: KVReader, id: string): Promise<Array<{ depositor: string; amount: Coin[] }>> {
  const prefix = Buffer.concat([depositPrefix, uint64BE(BigInt(id))]);
  return (await kv.range(prefix)).map(([key, value]) => ({
    depositor: key.subarray(prefix.length).toString('utf8'),
    amount: JSON.parse(value.toString('utf8')) as Coin[],
  }));
}

/** Deposits are refunded or burnt, and their records removed, once a proposal leaves its deposit or voting period. */
export async function deleteDeposits(kv: KVStore, id: string): Promise<void> {
  for (const [key] of await kv.range(Buffer.concat([depositPrefix, uint64BE(BigInt(id))]))) kv.delete(key);
}
