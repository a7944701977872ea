/**
 * `<home>/config/addresses.json`: where the running node listens, written once all servers are
 * bound (ports chosen by the system when the flags say port 0), removed when the node stops.
 * Clients (`--home`) and tests find the node through it.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';

import { writeFileAtomic } from '../util/atomic-write.js';
import { isErrno } from '../util/errors.js';

export interface NodeAddresses {
  /** CometBFT RPC, `tcp://host:port`. */
  rpc: string;
  /** gRPC, `host:port`; empty when gRPC is off. */
  grpc: string;
  /** REST API, `tcp://host:port`; empty when REST is off. */
  api: string;
  pid: number;
  /** The version of the binary that is running (genesis, v2, …). */
  version: string;
}

export function addressesPath(home: string): string {
  return path.join(home, 'config', 'addresses.json');
}

export async function writeAddresses(home: string, addresses: NodeAddresses): Promise<void> {
  await writeFileAtomic(addressesPath(home), `${JSON.stringify(addresses, null, 2)}\n`, 0o644);
}

export async function readAddresses(home: string): Promise<NodeAddresses | undefined> {
  try {
    return JSON.parse(await readFile(addressesPath(home), 'utf8')) as NodeAddresses;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
}

export async function removeAddresses(home: string): Promise<void> {
  await rm(addressesPath(home), { force: true });
}
