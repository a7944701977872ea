/**
 * Benchmark of upgrade sources (issue #34; not a test: it prints numbers and never fails on timing).
 *
 *   npm run bench:sources                 # 20 rounds
 *   node dist/bench/sources.js --rounds 40
 *
 * What resolving through three local sources adds to staging: the same tar.gz (a 1 MiB binary) is staged into a
 * fresh home by `downloadUpgradeBinary` (resolve → fetch → verify → extract → install), once with
 * CHAINVISOR_UPGRADE_SOURCES=plan (today's path) and once with plan,registry,chain-registry (the
 * registry and a chain registry versions.json served by a local HTTP server, a quorum of 3), the two
 * alternating in each round. Prints the median and spread of each, the difference, and the requests
 * each document received per staging (the goal: one extra round trip per source, once per plan).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';

import { loadConfig } from '../src/config/index.js';
import { downloadUpgradeBinary, hostPlatform } from '../src/download/index.js';
import { layoutFor, planTarget } from '../src/home/layout/index.js';
import { silentLogger } from '../src/shared/log.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
const rounds = Number(values.rounds);

function tarOf(name: string, body: Buffer): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0);
  h.write('0000755\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
  h.write('14000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const pad = Buffer.alloc((512 - (body.length % 512)) % 512);
  return Buffer.concat([h, body, pad, Buffer.alloc(1024)]);
}

const binary = Buffer.concat([Buffer.from('#!/bin/sh\necho v2.0.0\n'), Buffer.alloc(1 << 20, 7)]);
const archive = gzipSync(tarOf('bin/simd', binary));
const checksum = `sha256:${createHash('sha256').update(archive).digest('hex')}`;
const platform = hostPlatform();

const hits = new Map<string, number>();
const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  hits.set(url, (hits.get(url) ?? 0) + 1);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entry = { name: 'v2', height: 100, binaries: { [platform]: `${base}/simd.tar.gz?checksum=${checksum}` } };
  if (url === '/simd.tar.gz') res.writeHead(200, { 'content-length': archive.length }).end(archive);
  else if (url === '/registry.json') res.writeHead(200).end(JSON.stringify({ upgrades: [entry] }));
  else if (url === '/versions.json')
    res.writeHead(200).end(JSON.stringify({ chain_name: 'bench', versions: [{ ...entry, tag: 'v2.0.0', sdk: { version: 'v0.50' } }] }));
  else res.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const info = JSON.stringify({ binaries: { [platform]: `${base}/simd.tar.gz?checksum=${checksum}` } });
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-sources-'));

async function stageOnce(sources: boolean, round: number): Promise<number> {
  const home = path.join(work, `${sources ? 's' : 'p'}-${round}`);
  await fs.mkdir(path.join(home, 'cosmovisor', 'upgrades'), { recursive: true });
  const env: Record<string, string> = { DAEMON_HOME: home, DAEMON_NAME: 'simd', UNSAFE_SKIP_BACKUP: 'true', CHAINVISOR_SMOKE_TEST: 'false' };
  if (sources)
    Object.assign(env, {
      CHAINVISOR_UPGRADE_SOURCES: 'plan,registry,chain-registry',
      CHAINVISOR_REGISTRY_URL: `${base}/registry.json`,
      CHAINVISOR_CHAIN_REGISTRY_URL: `${base}/versions.json`,
      CHAINVISOR_CHECKSUM_QUORUM: '3',
    });
  const { config } = loadConfig({ env });
  const layout = layoutFor(config);
  const target = planTarget(layout, { name: 'v2', height: 100, info });
  const started = process.hrtime.bigint();
  await downloadUpgradeBinary({ target, config, layout, logger: silentLogger() });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  await fs.rm(home, { recursive: true, force: true });
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
try {
  // One warm-up of each: module loading and the first connection are not what is measured.
  await stageOnce(false, -1);
  await stageOnce(true, -1);
  hits.clear();
  const plan: number[] = [];
  const three: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      plan.push(await stageOnce(false, round));
      three.push(await stageOnce(true, round));
    } else {
      three.push(await stageOnce(true, round));
      plan.push(await stageOnce(false, round));
    }
  }
  console.log(`staging a tar.gz of a 1 MiB binary (${archive.length} bytes), ${rounds} rounds each, alternating`);
  console.log(`  sources=plan                           median ${median(plan).toFixed(1)} ms (${spread(plan)})`);
  console.log(`  sources=plan,registry,chain-registry   median ${median(three).toFixed(1)} ms (${spread(three)})`);
  console.log(`  added by the two documents             ${(median(three) - median(plan)).toFixed(1)} ms (median of each)`);
  console.log(
    `  requests per staging with three sources: registry.json ${(hits.get('/registry.json') ?? 0) / rounds}, versions.json ${(hits.get('/versions.json') ?? 0) / rounds}, binary ${(hits.get('/simd.tar.gz') ?? 0) / (2 * rounds)}`,
  );
} finally {
  server.close();
  await fs.rm(work, { recursive: true, force: true });
}
