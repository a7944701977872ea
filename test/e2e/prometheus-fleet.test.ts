/**
 * A fleet on a real Prometheus (issue #35): three `chainvisor run`s on fake nodes, each reading its own
 * fake chain RPC, in the three states of an upgrade week — v2 scheduled with its binary staged and
 * rehearsed (a), v2 scheduled 500 blocks away without its binary (b), v2 just applied and confirmed (c)
 * — scraped every second by Debian's `prometheus` with docs/prometheus-alerts.yml loaded (its `for:`
 * durations cut to 1 s, so that an alert fires within the test). Through Prometheus' HTTP API: the
 * fleet table of docs/grafana-dashboard.json gives the three rows with their values,
 * ChainvisorUpgradeBinaryNotStaged fires for b only, and every expression of the board and of the
 * rules evaluates without error. Without the `prometheus` binary it prints a loud SKIPPED line.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

import { QueryCurrentPlanResponse } from 'cosmjs-types/cosmos/upgrade/v1beta1/query.js';

import { plan } from '../support/fake-node.js';
import { commitResult, type FakeRpc, startFakeRpc, statusResult } from '../support/fake-rpc.js';
import { makeHome, type TestHome, waitFor } from '../support/home.js';
import { endpointOf } from '../support/observe-kit.js';
import { unusedPort } from '../support/ports.js';
import { prometheusMissing, type PromSample, startPrometheus } from '../support/prometheus.js';

if (prometheusMissing) process.stderr.write(`\n!!! PROMETHEUS FLEET TESTS SKIPPED: ${prometheusMissing}\n\n`);

const docs = path.resolve(fileURLToPath(import.meta.url), '../../../../docs');
const self = 'A'.repeat(40);

const planReply = (p: { name: string; height: number } | undefined) => ({
  result: {
    response: {
      code: 0,
      value: Buffer.from(
        QueryCurrentPlanResponse.encode(QueryCurrentPlanResponse.fromPartial({ plan: p && { name: p.name, height: BigInt(p.height), info: '' } })).finish(),
      ).toString('base64'),
    },
  },
});

interface Node {
  t: TestHome;
  rpc: FakeRpc;
  endpoint: string;
}

/** One chainvisor on a fake node and a fake chain whose height goes up every 100 ms (up to `stopAt`). */
async function node(
  t0: TestContext,
  name: string,
  o: { plan?: { name: string; height: number }; staged: boolean; rehearsed?: boolean; appliedAtStart?: boolean; stopAt?: number },
): Promise<Node> {
  const rpc = await startFakeRpc();
  let height = o.appliedAtStart ? 12 : 1000;
  const tick = (): void => rpc.answer('/status', { result: statusResult({ height, address: self, power: '10' }) });
  tick();
  const timer = setInterval(() => {
    if (o.stopAt === undefined || height < o.stopAt) height += 1;
    tick();
  }, 100);
  rpc.answer('/abci_query', planReply(o.plan));
  rpc.answer('/commit', { result: commitResult({ height: 10, time: new Date().toISOString(), signers: [self] }) });
  const t = await makeHome({
    CHAINVISOR_RPC_ADDRESS: rpc.address,
    DAEMON_GRPC_ADDRESS: `127.0.0.1:${await unusedPort()}`,
    CHAINVISOR_PLAN_POLL_INTERVAL: '1s',
    CHAINVISOR_HTTP_ADDRESS: '127.0.0.1:0',
  });
  await fs.mkdir(path.join(t.home, 'config'), { recursive: true });
  await fs.writeFile(path.join(t.home, 'config', 'config.toml'), `moniker = "node-${name}"\n`);
  await fs.writeFile(
    path.join(t.home, 'config', 'genesis.json'),
    JSON.stringify({ genesis_time: '2026-01-01T00:00:00Z', chain_id: `chain-${name}`, app_state: {} }),
  );
  await t.cliOk(['init', await t.fakeNode({ label: 'genesis' })]);
  if (o.staged) await t.cliOk(['add-upgrade', 'v2', await t.fakeNode({ label: 'v2' })]);
  if (o.rehearsed) {
    const record = {
      upgrade: 'v2',
      result: 'passed',
      reason: null,
      height: 900,
      migration_seconds: 4.2,
      blocks_after_upgrade: 3,
      finished_at: new Date().toISOString(),
    };
    await fs.mkdir(path.join(t.home, 'cosmovisor', '.chainvisor'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'cosmovisor', '.chainvisor', 'rehearsals.json'), JSON.stringify([record]));
  }
  if (o.appliedAtStart) {
    await fs.mkdir(path.join(t.home, 'data'), { recursive: true });
    await fs.writeFile(path.join(t.home, 'data', 'upgrade-info.json'), JSON.stringify(plan('v2', 10)));
  }
  const run = t.spawn(['run', 'start']);
  let output = '';
  run.all.on('data', (chunk: Buffer) => (output += chunk.toString()));
  t0.after(async () => {
    run.kill('SIGTERM');
    await run;
    clearInterval(timer);
    await rpc.close();
    await t.cleanup();
  });
  const endpoint = await endpointOf(t).catch((error: Error) => {
    throw new Error(`${error.message}\n${name} printed:\n${output}`);
  });
  return { t, rpc, endpoint: endpoint.replace('http://', '') };
}

/** A board query with Grafana's variables given: the job of the scrape configuration, every chain and instance. */
const withVariables = (expr: string): string => expr.replaceAll('$job', 'chainvisor').replaceAll('$chain', '.*').replaceAll('$instance', '.*');

/** Every PromQL expression of the board, with Grafana's variables given. */
function boardExpressions(node: unknown, out: { panel: string; expr: string }[] = [], panel = ''): { panel: string; expr: string }[] {
  if (Array.isArray(node)) for (const item of node) boardExpressions(item, out, panel);
  else if (node !== null && typeof node === 'object') {
    const title = typeof (node as { title?: unknown }).title === 'string' ? String((node as { title: string }).title) : panel;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'expr' && typeof value === 'string') out.push({ panel: title, expr: withVariables(value) });
      else boardExpressions(value, out, title);
    }
  }
  return out;
}

test(
  'three chainvisors on a real Prometheus: the fleet table, the not-staged alert for the right node only, every expression of the board and the rules',
  { skip: prometheusMissing },
  async (t) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'prometheus-fleet-'));
    t.after(() => fs.rm(dir, { recursive: true, force: true }));
    const [a, b, c] = await Promise.all([
      node(t, 'a', { plan: { name: 'v2', height: 100_000 }, staged: true, rehearsed: true }),
      node(t, 'b', { plan: { name: 'v2', height: 1500 }, staged: false, stopAt: 1499 }),
      node(t, 'c', { staged: true, appliedAtStart: true }),
    ]);
    if (!a || !b || !c) throw new Error('three nodes');
    // Each in its state before Prometheus looks: an ETA for a and b, the confirmation for c.
    const status = async (n: Node) =>
      (await (await fetch(`http://${n.endpoint}/status`)).json()) as { pending: { eta: unknown } | null; afterUpgrade: { state: string } | null };
    await waitFor(async () => (await status(a)).pending?.eta != null && (await status(b)).pending?.eta != null, 'an ETA on a and b', 60_000);
    await waitFor(async () => (await status(c)).afterUpgrade?.state === 'confirmed', 'c confirmed after its upgrade', 60_000);

    const rules = path.join(dir, 'rules.yml');
    await fs.writeFile(rules, (await fs.readFile(path.join(docs, 'prometheus-alerts.yml'), 'utf8')).replace(/^(\s+for:) \S+$/gm, '$1 1s'));
    const prom = await startPrometheus({ dir, targets: [a.endpoint, b.endpoint, c.endpoint], ruleFiles: [rules] });
    t.after(() => prom.close());

    const board = JSON.parse(await fs.readFile(path.join(docs, 'grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets?: { refId: string; expr: string }[] }[];
    };
    const fleet = board.panels.find((p) => p.title === 'Fleet: one row per node');
    assert.ok(fleet?.targets, 'the board has the fleet table');
    /** The table as Grafana's merge makes it: one row per instance, each query's labels and value (`Value #<refId>`). */
    const table = async (): Promise<Map<string, Record<string, string>>> => {
      const rows = new Map<string, Record<string, string>>();
      for (const target of fleet.targets ?? []) {
        for (const s of await prom.query(withVariables(target.expr))) {
          const instance = s.metric.instance ?? '';
          rows.set(instance, { ...rows.get(instance), ...s.metric, [`Value #${target.refId}`]: s.value[1] });
        }
      }
      return rows;
    };
    let rows = new Map<string, Record<string, string>>();
    await waitFor(
      async () => {
        rows = await table();
        return (
          rows.size === 3 &&
          [...rows.values()].every((r) => r.chain_id !== undefined && r.current !== undefined) &&
          rows.get(c.endpoint)?.['Value #H'] !== undefined
        );
      },
      'three rows in the fleet table',
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${JSON.stringify([...rows], null, 1)}\nprometheus:\n${prom.output()}`);
    });
    const ra = rows.get(a.endpoint) ?? {};
    const rb = rows.get(b.endpoint) ?? {};
    const rc = rows.get(c.endpoint) ?? {};
    assert.deepEqual(
      [ra.chain_id, ra.node, ra.daemon_name, ra.current, ra.next, ra.height, ra['Value #F'], ra['Value #G'], ra['Value #H']],
      ['chain-a', 'node-a', 'simd', 'genesis', 'v2', '100000', '1', '1', undefined],
    );
    assert.deepEqual(
      [rb.chain_id, rb.node, rb.current, rb.next, rb.height, rb['Value #F'], rb['Value #G'], rb['Value #H']],
      ['chain-b', 'node-b', 'genesis', 'v2', '1500', '0', undefined, undefined],
    );
    assert.deepEqual(
      [rc.chain_id, rc.node, rc.current, rc.next, rc['Value #D'], rc['Value #F'], rc['Value #H']],
      ['chain-c', 'node-c', 'v2', undefined, undefined, undefined, '2'],
      'after the upgrade: current v2, nothing pending, confirmed',
    );
    // The ETA is the blocks left at the measured block time (both scraped at one time; the block time read
    // here a moment later can differ a little as the window fills).
    const [bt] = await prom.query(`chainvisor_block_time_seconds{instance="${a.endpoint}"}`);
    const eta = Number(ra['Value #D']);
    const left = Number(ra['Value #E']);
    assert.ok(left > 90_000 && left < 99_100, `blocks left on a: ${left}`);
    const expected = left * Number(bt?.value[1]);
    assert.ok(eta > 0 && Math.abs(eta - expected) < expected * 0.1, `ETA ${eta} s for ${left} blocks of ${bt?.value[1]} s`);

    // The upgrades of the coming 7 days: b only (a is 99 000 blocks of 0.1 s away: 2.75 h; within 7 days too).
    const week = board.panels.find((p) => p.title === 'Upgrades of the coming 7 days')?.targets?.[0]?.expr ?? '';
    const coming = (await prom.query(withVariables(week))).map((s: PromSample) => s.metric.node).sort();
    assert.deepEqual(coming, ['node-a', 'node-b']);

    // The not-staged alert: b, and b only.
    type Alert = { labels: Record<string, string>; state: string };
    let alerts: Alert[] = [];
    await waitFor(
      async () => {
        alerts = (await prom.api<{ alerts: Alert[] }>('alerts')).alerts;
        return alerts.some((x) => x.labels.alertname === 'ChainvisorUpgradeBinaryNotStaged' && x.state === 'firing');
      },
      'ChainvisorUpgradeBinaryNotStaged firing',
      60_000,
    );
    assert.deepEqual(
      alerts.filter((x) => x.labels.alertname === 'ChainvisorUpgradeBinaryNotStaged').map((x) => [x.labels.instance, x.labels.name, x.state]),
      [[b.endpoint, 'v2', 'firing']],
    );
    assert.equal(alerts.filter((x) => x.labels.alertname === 'ChainvisorUpgradeStalled' || x.labels.alertname === 'ChainvisorValidatorNotSigning').length, 0);

    // Every expression of the board evaluates; every rule has been evaluated without error.
    const exprs = boardExpressions(board.panels);
    assert.ok(exprs.length >= 25, `${exprs.length} expressions on the board`);
    for (const { panel, expr } of exprs) await assert.doesNotReject(prom.query(expr), `panel "${panel}": ${expr}`);
    type Rule = { name: string; query: string; health: string; lastError?: string };
    const groups = (await prom.api<{ groups: { rules: Rule[] }[] }>('rules')).groups;
    const ruleList = groups.flatMap((g) => g.rules);
    assert.equal(ruleList.length, 9);
    for (const rule of ruleList) {
      assert.equal(rule.health, 'ok', `${rule.name}: ${rule.lastError ?? ''}`);
      await assert.doesNotReject(prom.query(rule.query), rule.name);
    }
  },
);
