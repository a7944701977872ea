/**
 * Runs the application in-process on a real store in a temp dir, with a clock the test moves, so the
 * module's rules can be checked block by block without processes or waiting for periods.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

import { App } from '../../src/chain/app.js';
import type { BlockRecord } from '../../src/chain/block.js';
import { defaultGenesis, type Genesis, type GenesisOptions } from '../../src/chain/genesis.js';
import { encodeTx, simSigned } from '../../src/chain/tx.js';
import { getSequence, govAddress, keyAddress } from '../../src/core/accounts.js';
import type { AnyMsg } from '../../src/core/msg.js';
import { type Database, openDatabase } from '../../src/store/db.js';
import { cancelUpgradeMsg, softwareUpgradeMsg } from '../../src/upgrade/msgs.js';
import { createSimLogger } from '../../src/util/log.js';
import { simVersions } from '../../src/versions.js';

export interface AppOpenOptions {
  skipHeights?: number[];
  haltHeight?: number;
}

export interface TestApp {
  readonly dir: string;
  readonly dataDir: string;
  /** Every log line so far, all opens included. */
  readonly lines: string[];
  readonly app: App;
  readonly db: Database;
  /** Current block time, ms since the epoch; each block advances it by `stepMs`. */
  nowMs: number;
  stepMs: number;
  /** Produces one block with these transactions. */
  block(...txs: TestTx[]): Promise<BlockRecord>;
  /** Produces blocks until the last committed height is `height`. */
  blocksUntil(height: number): Promise<void>;
  /** Closes the store and opens it again with another binary version (a restart). */
  reopen(version: string, options?: AppOpenOptions): Promise<void>;
  /** Log lines matching `pattern`. */
  logged(pattern: RegExp): string[];
}

/** A transaction to sign: `signer`'s placeholder key and current sequence go into its TxRaw. */
export interface TestTx {
  signer: string;
  messages: AnyMsg[];
}

export function txOf(signer: string, ...messages: AnyMsg[]): TestTx {
  return { signer, messages };
}

/** The TxRaw bytes of `tx` with the signer's committed sequence (plus `ahead`). */
export async function signedBytes(app: App, tx: TestTx, ahead = 0n): Promise<Buffer> {
  return encodeTx(simSigned(tx.signer, tx.messages, { sequence: (await getSequence(app.reader, tx.signer)) + ahead }));
}

/** A transaction executing MsgSoftwareUpgrade as the gov module account (what a passed proposal does). */
export function govSchedule(name: string, height: number, info = ''): TestTx {
  return txOf(govAddress, softwareUpgradeMsg(govAddress, { name, height, info }));
}

export function govCancel(): TestTx {
  return txOf(govAddress, cancelUpgradeMsg(govAddress));
}

/**
 * Walks an upgrade the way a supervisor does: the running binary halts at `height`, then `next`
 * (which has the handler) starts and applies it.
 */
export async function upgradeAt(h: TestApp, name: string, height: number, next: string): Promise<void> {
  await h.block(govSchedule(name, height));
  await h.blocksUntil(height - 1);
  await h.block().then(
    () => {
      throw new Error(`expected a halt at height ${height}`);
    },
    (error: unknown) => {
      if ((error as { kind?: string }).kind !== 'upgrade-needed') throw error;
    },
  );
  await h.reopen(next);
  await h.block();
}

export const alice = keyAddress('alice');
export const validator = keyAddress('validator');

export async function openTestApp(t: TestContext, options: { version?: string; genesis?: GenesisOptions } & AppOpenOptions = {}): Promise<TestApp> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sim-app-'));
  const dataDir = path.join(dir, 'data');
  const genesis: Genesis = defaultGenesis(options.genesis);
  const lines: string[] = [];
  const log = createSimLogger({ level: 'debug', write: (line) => lines.push(line) });
  let db = await openDatabase(dataDir);
  const open = async (version: string, opts: AppOpenOptions) => {
    const v = simVersions[version];
    if (v === undefined) throw new Error(`unknown version ${version}`);
    return App.open({ db, version: v, genesis, dataDir, log, skipHeights: new Set(opts.skipHeights ?? []), haltHeight: opts.haltHeight });
  };
  let app = await open(options.version ?? 'genesis', options);
  t.after(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });
  const harness: TestApp = {
    dir,
    dataDir,
    lines,
    get app() {
      return app;
    },
    get db() {
      return db;
    },
    nowMs: Date.parse('2025-01-01T00:00:00Z'),
    stepMs: 100,
    async block(...txs) {
      harness.nowMs += harness.stepMs;
      const ahead = new Map<string, bigint>();
      const bytes: Buffer[] = [];
      for (const tx of txs) {
        const n = ahead.get(tx.signer) ?? 0n;
        ahead.set(tx.signer, n + 1n);
        bytes.push(await signedBytes(app, tx, n));
      }
      return app.produceBlock(BigInt(harness.nowMs) * 1_000_000n, bytes);
    },
    async blocksUntil(height) {
      while (app.lastHeight < height) await harness.block();
    },
    async reopen(version, opts = {}) {
      await db.close();
      db = await openDatabase(dataDir);
      app = await open(version, opts);
    },
    logged: (pattern) => lines.filter((line) => pattern.test(line)),
  };
  return harness;
}
