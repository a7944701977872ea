/**
 * Helpers for the download and verify tests: a temp folder per test, a resolved Config for a home in
 * it, checksummed URLs, and a logger that keeps its lines for assertions.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';

import { pino } from 'pino';

import { type Config, loadConfig } from '../../src/config/index.js';
import { type Layout, layoutFor } from '../../src/home/layout/index.js';
import type { Logger } from '../../src/shared/log.js';

/** A fresh temp folder, removed when the test ends. */
export async function tempDir(t: TestContext, prefix = 'chainvisor-dl-'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `url?checksum=sha256:<hex of data>` (keeps an existing query). */
export function withChecksum(url: string, data: Buffer | string, algo = 'sha256'): string {
  const hex = createHash(algo).update(data).digest('hex');
  return `${url}${url.includes('?') ? '&' : '?'}checksum=${algo}:${hex}`;
}

export function binariesInfo(binaries: Record<string, string>): string {
  return JSON.stringify({ binaries });
}

/** A resolved Config and Layout for `home`, with small limits and timeouts suited to tests. */
export function testSetup(home: string, env: Record<string, string> = {}): { config: Config; layout: Layout } {
  const { config } = loadConfig({
    env: {
      DAEMON_HOME: home,
      DAEMON_NAME: 'simd',
      DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
      UNSAFE_SKIP_BACKUP: 'true',
      CHAINVISOR_DOWNLOAD_TIMEOUT: '2s',
      CHAINVISOR_DOWNLOAD_RETRIES: '3',
      ...env,
    },
  });
  return { config, layout: layoutFor(config) };
}

/** Backoff for tests: retries at once (a few ms), so no test waits on a timer. */
export const fastBackoff = { backoff: { baseMs: 2, maxMs: 10, retryAfterCapMs: 50 } };

export interface MemoryLogger {
  logger: Logger;
  lines(): Array<Record<string, unknown>>;
  text(): string;
}

export function memoryLogger(): MemoryLogger {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Every path under `dir`, relative, sorted (folders end in /). */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (sub: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(path.join(dir, sub), { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const rel = sub === '' ? entry.name : `${sub}/${entry.name}`;
      if (entry.isDirectory()) {
        out.push(`${rel}/`);
        await walk(rel);
      } else {
        out.push(rel);
      }
    }
  };
  await walk('');
  return out.sort();
}
