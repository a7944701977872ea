/**
 * "The network" of the twin check's end-to-end tests (issue #32): a second simulated node, in its own
 * home with the same chain id as the validator home under test, whose simulated peers hold most of the
 * power. With `twin`, one of those peers signs with the validator home's own key
 * (`--sim-peer-key <home>/config/priv_validator_key.json`) at the heights of its window: the commits a
 * second machine running that key leaves on the network. Its RPC is what CHAINVISOR_NETWORK_RPC points at.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

import { cli, type SimNode, startNode, waitFor } from '@chainvisor/simd/testing';

export interface TwinNetworkOptions {
  /** The home whose validator key a peer signs with (the home chainvisor runs). */
  validatorHome: string;
  /** The heights the validator's key signs at on the network; absent: its key is not in the set at all. */
  twin?: { from?: number; until?: number };
  /** Default `sim-1`, the validator home's (simd init's default). */
  chainId?: string;
  /** Default 500ms. */
  blockTime?: string;
}

export interface TwinNetwork {
  node: SimNode;
  /** `http://127.0.0.1:<port>`: what CHAINVISOR_NETWORK_RPC is set to. */
  rpc: string;
  height(): Promise<number>;
  waitForHeight(height: number, timeoutMs?: number): Promise<void>;
}

/** Starts the network node in a home of its own (both gone at the end of the test). `bin`: a simd binary. */
export async function startTwinNetwork(t: TestContext, bin: string, options: TwinNetworkOptions): Promise<TwinNetwork> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'twin-network-'));
  const home = path.join(dir, 'home');
  const init = await cli(bin, ['init', 'network', '--home', home, ...(options.chainId === undefined ? [] : ['--chain-id', options.chainId])]);
  if (init.code !== 0) throw new Error(init.stderr);
  const twin = options.twin;
  const args = [
    '--block-time',
    options.blockTime ?? '500ms',
    '--grpc.enable=false',
    '--sim-peers-power',
    '3000000',
    ...(twin === undefined
      ? []
      : [
          '--sim-peer-key',
          path.join(options.validatorHome, 'config', 'priv_validator_key.json'),
          ...(twin.from === undefined ? [] : ['--sim-peer-key-from', String(twin.from)]),
          ...(twin.until === undefined ? [] : ['--sim-peer-key-until', String(twin.until)]),
        ]),
  ];
  let node: SimNode;
  try {
    node = await startNode(t, bin, home, args);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  // After the node's own stop (hooks run in the order they are added): its writes never race the removal.
  t.after(() => rm(dir, { recursive: true, force: true }));
  return {
    node,
    rpc: node.addresses.rpc.replace(/^tcp:/, 'http:'),
    height: () => node.height(),
    async waitForHeight(height, timeoutMs) {
      await waitFor(async () => (await node.height()) >= height, `the network at height ${height}`, timeoutMs ?? 60_000);
    },
  };
}
