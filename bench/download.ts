/**
 * Benchmark of automatic download (not a test: it prints numbers and never fails on timing).
 *
 *   npm run bench:download            # 256 MiB ratio run, then the 1 GiB peak-RSS run
 *   node dist/bench/download.js --size-mib 64 --rss-mib 256    # smaller, quicker
 *
 * 1. Throughput: a 256 MiB tar.gz served by a local HTTP server (its own process). Each measured
 *    transfer runs in a fresh child process: a raw transfer of the same bytes to a file (no hash;
 *    once with undici, which the download uses, once with node:http, its former client), then
 *    chainvisor's pipeline (download + sha256 to a file; then verify, safe extraction from the file
 *    and finding the binary, go-getter's order) over each of the two clients
 *    (bench/support/node-http-client.ts is the former one), then the install step (fsync of the tree
 *    + rename). Modes alternate within each round. Ratio = median pipeline throughput / median raw
 *    throughput of the same client, 3 runs each (medians, with the spread).
 * 2. Memory: peak RSS (the child's own maxRSS) of the pipeline on a 1 GiB archive, each client,
 *    alternating, 3 runs each.
 * The goals (issue 24): with undici, ratio at least 0.8 and peak RSS at 1 GiB at most 144 MiB.
 * Archives are generated in a temp folder at run time and deleted afterwards.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';

import { pino } from 'pino';

import { createFetcher, fetchAndUnpack, parseSource } from '../src/download/index.js';
import { installFolder } from '../src/home/layout/index.js';
import { silentLogger } from '../src/shared/log.js';
import { createNodeHttpClient } from './support/node-http-client.js';

const self = fileURLToPath(import.meta.url);
const MiB = 1 << 20;

// ------------------------------------------------------------------ archive generation

/** A tar.gz of `mib` MiB holding bin/simd (a shell script header + filler) and a large library. */
async function makeArchive(file: string, mib: number): Promise<string> {
  const block = Buffer.alloc(4 * MiB);
  // Pseudo-random filler: incompressible to gzip (its window is 32 KiB), cheap to produce.
  for (let i = 0; i < block.length; i += 32) createHash('sha256').update(`${i}`).digest().copy(block, i);
  const binarySize = Math.max(MiB, Math.floor((mib * MiB) / 4));
  const librarySize = mib * MiB - binarySize;
  const header = (name: string, size: number, mode: number): Buffer => {
    const h = Buffer.alloc(512);
    h.write(name, 0);
    h.write(`${mode.toString(8).padStart(7, '0')}\0`, 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
    h.write('14000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\u000000', 257);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    return h;
  };
  async function* entries(): AsyncGenerator<Buffer> {
    const script = Buffer.from('#!/bin/sh\necho v2.0.0\nexit 0\n');
    for (const [name, size, mode] of [
      ['bin/simd', binarySize, 0o755],
      ['lib/libwasmvm.so', librarySize, 0o644],
    ] as const) {
      yield header(name, size, mode);
      let left = size;
      if (name === 'bin/simd') {
        yield script;
        left -= script.length;
      }
      while (left > 0) {
        const n = Math.min(left, block.length);
        yield block.subarray(0, n);
        left -= n;
      }
      if (size % 512 !== 0) yield Buffer.alloc(512 - (size % 512));
    }
    yield Buffer.alloc(1024);
  }
  const hash = createHash('sha256');
  await pipeline(
    entries,
    createGzip({ level: 1 }),
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        hash.update(chunk);
        yield chunk;
      }
    },
    createWriteStream(file),
  );
  return hash.digest('hex');
}

// ------------------------------------------------------------------ roles run in child processes

function serve(file: string): void {
  const server = http.createServer((_req, res) => {
    // Stat each time: the file is replaced between the throughput and the memory runs.
    fs.stat(file).then(
      ({ size }) => {
        res.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream', 'accept-ranges': 'bytes' });
        createReadStream(file, { highWaterMark: MiB }).pipe(res);
      },
      () => res.writeHead(404).end(),
    );
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
}

interface ClientResult {
  ms: number;
  bytes: number;
  /** Pipeline only: download + hash to a file, then verify + extract + find the binary. */
  downloadMs?: number;
  extractMs?: number;
  installMs?: number;
  maxRssMiB: number;
}

/** A logger that notes when each pipeline step logged, for the breakdown. */
function stepLogger(marks: Map<string, number>): ReturnType<typeof silentLogger> {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) {
        if (line !== '') marks.set((JSON.parse(line) as { msg: string }).msg, performance.now());
      }
      callback();
    },
  });
  return pino({ level: 'info' }, sink);
}

async function client(mode: Mode, url: string, dir: string): Promise<ClientResult> {
  const started = performance.now();
  let bytes = 0;
  let installMs: number | undefined;
  if (mode === 'raw-node-http' || mode === 'raw-undici') {
    const body: AsyncIterable<Buffer> =
      mode === 'raw-undici'
        ? (await (await import('undici')).request(url)).body
        : await new Promise<http.IncomingMessage>((resolve, reject) => http.get(url, resolve).on('error', reject));
    const out = createWriteStream(path.join(dir, 'raw'));
    await pipeline(
      body,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          bytes += chunk.length;
          yield chunk;
        }
      },
      out,
    );
  } else {
    const fetcher = createFetcher({
      timeoutMs: 30_000,
      retries: 0,
      maxBytes: 8 * 1024 * MiB,
      policy: { allowInsecureHttp: false, allowFileUrls: false },
      logger: silentLogger(),
      ...(mode === 'pipeline-node-http' ? { client: createNodeHttpClient({ timeoutMs: 30_000 }) } : {}),
    });
    const work = path.join(dir, 'work');
    await fs.mkdir(work);
    const marks = new Map<string, number>();
    const staged = await fetchAndUnpack({
      source: parseSource(url, { mustHaveChecksum: true, what: 'linux/amd64 binary' }),
      platform: 'linux/amd64',
      name: 'simd',
      workDir: work,
      fetcher,
      limits: { maxBytes: 16 * 1024 * MiB, maxEntries: 10_000 },
      logger: stepLogger(marks),
      smokeTest: false,
    });
    bytes = staged.bytes;
    await fetcher.close();
    const ms = performance.now() - started;
    const downloaded = marks.get('download complete') ?? started;
    const downloadMs = downloaded - started;
    const extractMs = (marks.get('unpacked') ?? downloaded) - downloaded;
    const installStarted = performance.now();
    await installFolder({ staged: staged.tree, target: path.join(dir, 'upgrades', 'v2'), logger: silentLogger() });
    installMs = performance.now() - installStarted;
    return { ms, bytes, downloadMs, extractMs, installMs, maxRssMiB: process.resourceUsage().maxRSS / 1024 };
  }
  return { ms: performance.now() - started, bytes, maxRssMiB: process.resourceUsage().maxRSS / 1024 };
}

// ------------------------------------------------------------------ orchestration

function runChild<T>(args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(self, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (message) => resolve(message as T));
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`child ${args[0]} exited ${code}`))));
  });
}

type Mode = 'raw-node-http' | 'raw-undici' | 'pipeline' | 'pipeline-node-http';

async function measure(mode: Mode, url: string, root: string): Promise<ClientResult> {
  const dir = await fs.mkdtemp(path.join(root, `${mode}-`));
  try {
    return await runChild<ClientResult>(['--client', mode, url, dir]);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const rate = (r: ClientResult): number => r.bytes / MiB / (r.ms / 1000);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'size-mib': { type: 'string', default: '256' }, 'rss-mib': { type: 'string', default: '1024' }, runs: { type: 'string', default: '3' } },
  });
  const sizeMiB = Number(values['size-mib']);
  const rssMiB = Number(values['rss-mib']);
  const runs = Number(values.runs);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-bench-'));
  let server: ChildProcess | undefined;
  try {
    console.log(`node ${process.version}, ${os.cpus().length} CPU(s), ${os.cpus()[0]?.model ?? '?'}`);
    console.log(`generating a ${sizeMiB} MiB tar.gz …`);
    const archive = path.join(root, 'release.tar.gz');
    const digest = await makeArchive(archive, sizeMiB);
    const size = (await fs.stat(archive)).size;

    const serverReady = new Promise<number>((resolve) => {
      server = fork(self, ['--serve', archive], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      server.once('message', (m) => resolve((m as { port: number }).port));
    });
    const port = await serverReady;
    const url = `http://127.0.0.1:${port}/release.tar.gz?checksum=sha256:${digest}`;

    const results: Record<Mode, ClientResult[]> = { 'raw-undici': [], 'raw-node-http': [], pipeline: [], 'pipeline-node-http': [] };
    const modes = Object.keys(results) as Mode[];
    for (let i = 0; i < runs; i++) {
      // Alternate the order each round, so neither client always runs on a warmer machine.
      for (const mode of i % 2 === 0 ? modes : [...modes].reverse()) results[mode].push(await measure(mode, url, root));
    }
    const median = (values: number[]): number => {
      const sorted = [...values].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
    };
    const range = (values: number[], digits = 0): string => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
    const rates = (mode: Mode): number[] => results[mode].map(rate);
    const line = (label: string, mode: Mode): void => {
      console.log(
        `${label.padEnd(42)} median ${median(rates(mode)).toFixed(0)} MiB/s (${range(rates(mode))}); peak RSS median ${median(results[mode].map((r) => r.maxRssMiB)).toFixed(0)} MiB (${range(results[mode].map((r) => r.maxRssMiB))})`,
      );
    };
    console.log(`archive: ${(size / MiB).toFixed(1)} MiB, ${runs} runs of each, alternating`);
    line('raw transfer to a file, undici:', 'raw-undici');
    line('raw transfer to a file, node:http:', 'raw-node-http');
    line('pipeline over undici:', 'pipeline');
    line('pipeline over node:http (former client):', 'pipeline-node-http');
    const pipe = results.pipeline;
    const downloadMs = median(pipe.map((r) => r.downloadMs ?? 0));
    const extractMs = median(pipe.map((r) => r.extractMs ?? 0));
    console.log(`  undici pipeline, download + hash: ${downloadMs.toFixed(0)} ms; after the last byte (verify, extract, find): ${extractMs.toFixed(0)} ms`);
    console.log(`ratio, undici (pipeline / raw undici):     ${(median(rates('pipeline')) / median(rates('raw-undici'))).toFixed(2)} (medians; goal ≥ 0.8)`);
    console.log(`ratio, node:http (pipeline / raw):         ${(median(rates('pipeline-node-http')) / median(rates('raw-node-http'))).toFixed(2)} (medians)`);
    console.log(`pipeline undici / pipeline node:http:      ${(median(rates('pipeline')) / median(rates('pipeline-node-http'))).toFixed(2)} (medians)`);
    console.log(`install (fsync every file + rename):       ${median(pipe.map((r) => r.installMs ?? 0)).toFixed(0)} ms (disk-bound, not in the ratio)`);
    await fs.rm(archive);

    if (rssMiB > 0) {
      console.log(`generating a ${rssMiB} MiB tar.gz …`);
      const big = path.join(root, 'release.tar.gz');
      const bigDigest = await makeArchive(big, rssMiB);
      const bigUrl = `http://127.0.0.1:${port}/release.tar.gz?checksum=sha256:${bigDigest}`;
      const big1: Record<'pipeline' | 'pipeline-node-http', ClientResult[]> = { pipeline: [], 'pipeline-node-http': [] };
      for (let i = 0; i < runs; i++) {
        for (const mode of i % 2 === 0 ? (['pipeline', 'pipeline-node-http'] as const) : (['pipeline-node-http', 'pipeline'] as const)) {
          big1[mode].push(await measure(mode, bigUrl, root));
        }
      }
      for (const [label, mode] of [
        ['undici', 'pipeline'],
        ['node:http', 'pipeline-node-http'],
      ] as const) {
        const rss = big1[mode].map((r) => r.maxRssMiB);
        console.log(
          `peak RSS, ${rssMiB} MiB pipeline, ${label.padEnd(9)}  median ${median(rss).toFixed(0)} MiB (${range(rss)}); ${median(big1[mode].map(rate)).toFixed(0)} MiB/s${mode === 'pipeline' ? '  (goal ≤ 144 MiB)' : ''}`,
        );
      }
      const baseline = await runChild<{ maxRssMiB: number }>(['--baseline']);
      console.log(`peak RSS of an idle child (baseline):      ${baseline.maxRssMiB.toFixed(0)} MiB`);
    }
  } finally {
    server?.disconnect();
    server?.kill();
    await fs.rm(root, { recursive: true, force: true });
  }
}

const [role, ...rest] = process.argv.slice(2);
if (role === '--serve') {
  serve(rest[0] as string);
} else if (role === '--client') {
  const result = await client(rest[0] as Mode, rest[1] as string, rest[2] as string);
  process.send?.(result, () => process.exit(0));
} else if (role === '--baseline') {
  await import('../src/download/index.js');
  process.send?.({ maxRssMiB: process.resourceUsage().maxRSS / 1024 }, () => process.exit(0));
} else {
  await main();
}
