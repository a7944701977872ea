/**
 * `npm run demo`: a simulated chain upgrades from genesis to v2 under chainvisor, in a temp folder.
 *
 *   1. build the simulated node's versions (genesis and v2);
 *   2. initialise the chain and chainvisor's layout, install v2 ahead of time (`add-upgrade`);
 *   3. start the node under `chainvisor run`;
 *   4. pass a governance proposal to upgrade to v2 a few seconds ahead;
 *   5. watch the node halt, chainvisor switch, and v2 wait for the rest of the validator set: the
 *      simulated peers (2/3 of the power, `--sim-peers-power`) come back one by one over 5 s
 *      (`--sim-peers-back-after`), the prevote share rises, and above 2/3 v2 applies the upgrade;
 *   6. query the applied upgrade and the module versions from v2's command line.
 *
 * Options: --keep (leave the temp folder), --block-time 200ms.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';

import { buildVersions, type NodeAddresses, readAddresses } from '@chainvisor/simd';

import { unusedPort } from '../test/support/ports.js';

const run = promisify(execFile);
const chainvisor = path.resolve(fileURLToPath(import.meta.url), '../../../bin/chainvisor.js');
const { values } = parseArgs({ options: { keep: { type: 'boolean' }, 'block-time': { type: 'string', default: '200ms' } } });

const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const step = (s: string) => console.log(`\n${bold(`▶ ${s}`)}`);

async function sh(bin: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const shown = [path.basename(bin) === 'chainvisor.js' ? 'chainvisor' : path.basename(bin), ...args].map((a) => (/[\s{"]/.test(a) ? `'${a}'` : a));
  console.log(`  $ ${shown.join(' ')}`);
  const argv = bin === chainvisor ? [chainvisor, ...args] : args;
  const file = bin === chainvisor ? process.execPath : bin;
  const { stdout, stderr } = await run(file, argv, { env: { ...process.env, ...env } });
  for (const line of `${stdout}${stderr}`.trim().split('\n').filter(Boolean)) console.log(`    ${line}`);
  return stdout;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function heightOf(a: NodeAddresses): Promise<number> {
  const r = await fetch(`${a.rpc.replace('tcp:', 'http:')}/status`);
  return Number(((await r.json()) as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
}

/** Shows the supervised output, minus the routine block lines far from the upgrade height. */
function relay(child: ChildProcess, upgradeHeight: () => number | undefined): void {
  const show = (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) {
      const block = /committed state .*height=(\d+)/.exec(line);
      const target = upgradeHeight();
      if (block && (target === undefined || Math.abs(Number(block[1]) - target) > 2)) continue;
      console.log(`  │ ${line}`);
    }
  };
  child.stdout?.setEncoding('utf8').on('data', show);
  child.stderr?.setEncoding('utf8').on('data', show);
}

/**
 * What an operator watches with pvtop after the switch: v2's `/consensus_state`, one line each time
 * the prevotes change, until the block at the upgrade height commits.
 */
async function watchPrevotes(a: NodeAddresses, height: number): Promise<void> {
  const url = `${a.rpc.replace('tcp:', 'http:')}/consensus_state`;
  let shown = '';
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const state = await fetch(url)
      .then(async (r) => ((await r.json()) as { result: { round_state: RoundStateJson } }).result.round_state)
      .catch(() => undefined);
    if (state !== undefined) {
      const [h] = state['height/round/step'].split('/');
      if (Number(h) > height) break;
      const line = `height/round/step ${state['height/round/step']}  prevotes ${state.height_vote_set.at(-1)?.prevotes_bit_array ?? ''}`;
      if (Number(h) === height && line !== shown) console.log(`  ◆ ${line}`);
      shown = line;
    }
    if ((await heightOf(a).catch(() => 0)) >= height) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const committed = (await heightOf(a).catch(() => 0)) >= height;
  console.log(committed ? `  ◆ more than 2/3 of the voting power is back: block ${height} committed` : `  ◆ block ${height} not committed after 60 s`);
}

interface RoundStateJson {
  'height/round/step': string;
  height_vote_set: Array<{ prevotes_bit_array: string }>;
}

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'chainvisor-demo-'));
const home = path.join(root, 'home');
const env = {
  DAEMON_HOME: home,
  DAEMON_NAME: 'simd',
  UNSAFE_SKIP_BACKUP: 'true',
  CHAINVISOR_LOG_FORMAT: 'text',
  COSMOVISOR_COLOR_LOGS: String(process.stdout.isTTY === true),
};
let supervisor: ChildProcess | undefined;
try {
  step(`building the simulated node's versions into ${root}/versions`);
  const built = await buildVersions({ out: path.join(root, 'versions'), versions: ['genesis', 'v2'] });
  const genesis = built.versions.genesis?.bin as string;
  const v2 = built.versions.v2?.bin as string;
  console.log(`    genesis: ${genesis}\n    v2:      ${v2}`);

  step('initialising the chain (1 s deposit and voting periods, the validator votes yes) and chainvisor');
  await sh(genesis, ['init', 'demo', '--home', home, '--voting-period', '1s', '--deposit-period', '1s', '--auto-vote']);
  await sh(chainvisor, ['init', genesis], env);
  await sh(chainvisor, ['add-upgrade', 'v2', v2], env);

  step('starting the node under chainvisor');
  const nodeArgs = [
    'start',
    '--home',
    home,
    '--block-time',
    values['block-time'],
    // Real ports, not 0: chainvisor reads the plan through the gRPC and follows the network after the
    // switch through the RPC, which it cannot dial at a port 0.
    '--rpc.laddr',
    `tcp://127.0.0.1:${await unusedPort()}`,
    '--grpc.address',
    `127.0.0.1:${await unusedPort()}`,
    '--api.address',
    'tcp://127.0.0.1:0',
    // The rest of the validator set, simulated: 10 peers with 2/3 of the power, back over 5 s after the switch.
    '--sim-peers-power',
    '2000000',
    '--sim-peers-back-after',
    '5s',
  ];
  console.log(`  $ chainvisor run ${nodeArgs.join(' ')}`);
  let target: number | undefined;
  supervisor = spawn(process.execPath, [chainvisor, 'run', ...nodeArgs], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  relay(supervisor, () => target);
  const exited = new Promise<number | null>((resolve) => supervisor?.on('exit', (code) => resolve(code)));

  const first = await until('the genesis node', async () => {
    const a = await readAddresses(home);
    return a?.version === 'genesis' && (await heightOf(a)) >= 2 ? a : undefined;
  });
  target = (await heightOf(first)) + 25;

  step(`proposing upgrade v2 at height ${target} through governance`);
  await sh(genesis, [
    'tx',
    'upgrade',
    'software-upgrade',
    'v2',
    '--title',
    'Upgrade to v2',
    '--summary',
    'demo',
    '--deposit',
    '10000000stake',
    '--upgrade-height',
    String(target),
    '--upgrade-info',
    built.versions.v2?.info as string,
    '--from',
    'validator',
    '--home',
    home,
    '--yes',
    '--output',
    'text',
  ]);

  step('waiting for the halt, the switch and the network to come back');
  const upgraded = await until(
    'the v2 node',
    async () => {
      const a = await readAddresses(home);
      return a?.version === 'v2' ? a : undefined;
    },
    120_000,
  );
  await watchPrevotes(upgraded, target);
  const second = await until(
    'the v2 node',
    async () => {
      const a = await readAddresses(home);
      return a?.version === 'v2' && (await heightOf(a)) >= target + 3 ? a : undefined;
    },
    120_000,
  );

  step('chainvisor follows the network until the first block of v2 is committed and signed');
  await until(
    'chainvisor to confirm the upgrade',
    async () => {
      const { stdout } = await run(process.execPath, [chainvisor, 'status', '--output', 'json'], { env: { ...process.env, ...env } });
      return (JSON.parse(stdout) as { afterUpgrade: { state: string } | null }).afterUpgrade?.state === 'confirmed' ? true : undefined;
    },
    120_000,
  );
  await sh(chainvisor, ['status'], env);

  step('what v2 reports');
  await sh(v2, ['query', 'upgrade', 'applied', 'v2', '--home', home, '--output', 'text']);
  await sh(v2, ['query', 'upgrade', 'module_versions', '--home', home, '--output', 'text']);
  await sh(chainvisor, ['show-upgrade-info'], env);
  console.log(`    current -> ${await fs.readlink(path.join(home, 'cosmovisor', 'current'))}; v2 is at height ${await heightOf(second)}`);

  step('stopping chainvisor (SIGTERM is forwarded to the node)');
  supervisor.kill('SIGTERM');
  console.log(`    chainvisor exited with ${await exited}`);
  supervisor = undefined;
  console.log(
    `\n${bold('Done:')} the node halted at height ${target}, chainvisor switched to v2, v2 applied the upgrade at that height once more than 2/3 of the validators were back, and chainvisor confirmed the network's first block.`,
  );
} catch (error) {
  console.error(`\ndemo failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  supervisor?.kill('SIGKILL');
  if (values.keep) console.log(`\nkept ${root}`);
  else await fs.rm(root, { recursive: true, force: true });
}
