/** The gov module's store (`s/gov/`): params, proposals (JSON) and their votes. */
import type { KVReader, KVStore } from '../store/kv.js';
import { readUint64BE, uint64BE } from '../util/bytes.js';
import type { GovParams, Proposal, VoteOption } from './types.js';

export const govStorePrefix = 's/gov/';

const paramsKey = Buffer.from('params');
const nextIdKey = Buffer.from('next_id');
const proposalPrefix = Buffer.from('p/');
const votePrefix = Buffer.from('v/');

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
}

export async function deleteVotes(kv: KVStore, id: string): Promise<void> {
  for (const [key] of await kv.range(Buffer.concat([votePrefix, uint64BE(BigInt(id))]))) kv.delete(key);
}

export async function allProposals(kv: KVReader): Promise<Proposal[]> {
  return (await kv.range(proposalPrefix)).map(([, value]) => JSON.parse(value.toString('utf8')) as Proposal);
}

export function setVote(kv: KVStore, id: string, voter: string, option: VoteOption): void {
  kv.set(Buffer.concat([votePrefix, uint64BE(BigInt(id)), Buffer.from(voter)]), Buffer.from(option));
}

export async function getVotes(kv: KVReader, id: string): Promise<Array<{ voter: string; option: VoteOption }>> {
  const prefix = Buffer.concat([votePrefix, uint64BE(BigInt(id))]);
  return (await kv.range(prefix)).map(([key, value]) => ({
    voter: key.subarray(prefix.length).toString('utf8'),
    option: value.toString('utf8') as VoteOption,
  }));
}
