/**
 * Downtime at the halt, on the simulated chain: the time from the node writing upgrade-info.json to the
 * new binary serving (its RPC answering above the halt height), with the upgrade binary staged before the
 * halt and without (downloaded at the halt, as cosmovisor does), in one run, same archive, same mirror.
 *
 * The archive is what real chains ship: bin/simd plus a 32 MiB shared library (libwasmvm-sized), served
 * by a local mirror throttled to about 3 MB/s. The plan is scheduled through governance about 100 blocks
 * ahead at 200 ms blocks. Staging polls the plan at the default CHAINVISOR_PLAN_POLL_INTERVAL.
 *
 *   npm run bench:downtime -- [--library-mib 32] [--rate-mbps 3] [--blocks-ahead 100] [--block-time 200ms] [--poll 10s] [--bin path/to/bin/chainvisor.js]
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { buildVersions, hostPlatform, readAddresses } from '@chainvisor/simd';
import { cli, proposeUpgrade } from '@chainvisor/simd/testing';
import * as tar from 'tar';

import { unusedPort } from '../test/support/ports.js';

const { values } = parseArgs({
  options: {
    'library-mib': { type: 'string', default: '32' },
    'rate-mbps': { type: 'string', default: '3' },
    'blocks-ahead': { type: 'string', default: '100' },
    'block-time': { type: 'string', default: '200ms' },
    poll: { type: 'string', default: '10s' },
    bin: { type: 'string' },
  },
});
/** The chainvisor measured: this checkout's, or another build's bin/chainvisor.js (`--bin`), for a before and after. */
const chainvisor = values.bin === undefined ? path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js') : path.resolve(values.bin);
const rate = Number(values['rate-mbps']) * 1e6;

/** A mirror throttled to `rate` bytes/s, counting the bytes it sends. */
async function mirror(root: string) {
  let sent = 0;
  const server = http.createServer((req, res) => void send(req, res));
  async function send(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const file = path.join(root, path.basename(new URL(req.url ?? '/', 'http://x').pathname));
    const size = (await fs.stat(file).catch(() => undefined))?.size;
    if (size === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': size });
    const started = Date.now();
    let own = 0;
    for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) {
      if (res.destroyed) break;
      own += (chunk as Buffer).length;
      sent += (chunk as Buffer).length;
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      const ahead = (own / rate) * 1000 - (Date.now() - started);
      if (ahead > 0) await sleep(ahead);
    }
    res.end();
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent: () => sent, close: () => server.close() };
}

async function scenario(label: string, staged: boolean, work: string, built: Awaited<ReturnType<typeof buildVersions>>, info: string, sent: () => number) {
  const home = path.join(work, `home-${label}`);
  const genesis = built.versions.genesis!.bin;
  await cli(genesis, ['init', 'bench', '--home', home, '--voting-period', '1s', '--deposit-period', '1s', '--auto-vote']);
  const grpc = `127.0.0.1:${await unusedPort()}`;
  const env = {
    ...process.env,
    DAEMON_HOME: home,
    DAEMON_NAME: 'simd',
    UNSAFE_SKIP_BACKUP: 'true',
    DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
    DAEMON_GRPC_ADDRESS: grpc,
    CHAINVISOR_PLAN_POLL_INTERVAL: staged ? values.poll : '0s',
    CHAINVISOR_LOG_FORMAT: 'json',
  };
  await cli(process.execPath, [chainvisor, 'init', genesis], env);
  const run = spawn(
    process.execPath,
    [
      chainvisor,
      'run',
      'start',
      '--home',
      home,
      '--block-time',
      values['block-time'],
      '--grpc.address',
      grpc,
      '--rpc.laddr',
      'tcp://127.0.0.1:0',
      '--api.address',
      'tcp://127.0.0.1:0',
    ],
    { env, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  try {
    const nodeOf = async (version: string) => {
      for (;;) {
        const a = await readAddresses(home).catch(() => undefined);
        if (a?.version === version) return a;
        await sleep(10);
      }
    };
    const heightOf = async (rpc: string) => {
      const r = await fetch(`${rpc.replace('tcp:', 'http:')}/status`);
      return Number(((await r.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
    };
    const first = await nodeOf('genesis');
    await sleep(500);
    const height = (await heightOf(first.rpc)) + Number(values['blocks-ahead']);
    await proposeUpgrade(genesis, home, { name: 'v2', height, info });
    const before = sent();
    const file = path.join(home, 'data', 'upgrade-info.json');
    let written: number | undefined;
    while (written === undefined) {
      written = (await fs.stat(file).catch(() => undefined))?.mtimeMs;
      if (written === undefined) await sleep(5);
    }
    const bytesBeforeHalt = sent() - before;
    const stagedInTime = await fs.stat(path.join(home, 'cosmovisor', 'upgrades', 'v2', 'bin', 'simd')).then(
      () => true,
      () => false,
    );
    const second = await nodeOf('v2');
    for (;;) {
      const h = await heightOf(second.rpc).catch(() => 0);
      if (h > height) break;
      await sleep(10);
    }
    const downtime = (Date.now() - written) / 1000;
    return { label, downtime, stagedInTime, bytesBeforeHalt, bytesAtHalt: sent() - before - bytesBeforeHalt };
  } finally {
    run.kill('SIGTERM');
    await new Promise((resolve) => run.once('exit', resolve));
  }
}

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-downtime-'));
try {
  const built = await buildVersions({ out: path.join(work, 'versions'), versions: ['genesis', 'v2'] });
  const tree = path.join(work, 'v2-tree');
  await fs.mkdir(path.join(tree, 'bin'), { recursive: true });
  await fs.mkdir(path.join(tree, 'lib'), { recursive: true });
  await fs.copyFile(built.versions.v2!.bin, path.join(tree, 'bin', 'simd'));
  await fs.chmod(path.join(tree, 'bin', 'simd'), 0o755);
  await fs.writeFile(path.join(tree, 'lib', 'libwasmvm.x86_64.so'), randomBytes(Number(values['library-mib']) * 1024 * 1024));
  const files = path.join(work, 'mirror');
  await fs.mkdir(files);
  const archive = path.join(files, 'v2.tar.gz');
  await tar.c({ gzip: true, cwd: tree, file: archive, portable: true }, ['bin', 'lib']);
  const sha = createHash('sha256')
    .update(await fs.readFile(archive))
    .digest('hex');
  const size = (await fs.stat(archive)).size;
  const server = await mirror(files);
  const info = JSON.stringify({ binaries: { [hostPlatform()]: `${server.url}/v2.tar.gz?checksum=sha256:${sha}` } });
  console.log(
    `archive ${(size / 2 ** 20).toFixed(1)} MiB at ${values['rate-mbps']} MB/s (${(size / rate).toFixed(1)} s to fetch); plan ${values['blocks-ahead']} blocks ahead at ${values['block-time']} blocks; plan poll ${values.poll}`,
  );
  const results = [];
  for (const [label, staged] of [
    ['staged', true],
    ['not staged', false],
  ] as const) {
    const r = await scenario(label.replace(' ', '-'), staged, work, built, info, server.sent);
    results.push(r);
    console.log(
      `${label.padEnd(11)} downtime ${r.downtime.toFixed(2)} s · binary in place before the halt: ${r.stagedInTime ? 'yes' : 'no'} · ` +
        `bytes before the halt ${(r.bytesBeforeHalt / 2 ** 20).toFixed(1)} MiB, at the halt ${(r.bytesAtHalt / 2 ** 20).toFixed(1)} MiB`,
    );
  }
  server.close();
} finally {
  await fs.rm(work, { recursive: true, force: true });
}
