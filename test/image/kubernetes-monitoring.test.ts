/**
 * The shipped monitoring agrees on Kubernetes (issue #43): the ServiceMonitor and the pod-discovery
 * scrape job of docs/monitoring.md both give the job the alert rules filter on and the board picks by
 * default, both carry the pod's `chain` label (Alertmanager routes by it) and select the StatefulSet's
 * pods; every query of the board filters on its `job`, `chain` and `instance` variables.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { parse, parseAllDocuments } from 'yaml';

const root = path.resolve(fileURLToPath(import.meta.url), '../../../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
type Obj = Record<string, any>;
const yamlDocs = (file: string): Obj[] => parseAllDocuments(read(file)).map((d) => d.toJS() as Obj);

const objects = [...yamlDocs('docs/k8s/statefulset.yaml'), ...yamlDocs('docs/k8s/servicemonitor.yaml')];
const pod = objects.find((o) => o.kind === 'StatefulSet')?.spec.template.metadata as { labels: Obj; annotations: Obj };
const monitor = objects.find((o) => o.kind === 'ServiceMonitor') as Obj;
const service = objects.find((o) => o.kind === 'Service') as Obj;

/** The YAML block of docs/monitoring.md's "Kubernetes" section: the pod-discovery scrape job. */
function podScrapeJob(): Obj {
  const section = read('docs/monitoring.md').split(/^### Kubernetes$/m)[1] ?? '';
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'docs/monitoring.md has a Kubernetes section with a scrape configuration');
  const jobs = (parse(block) as { scrape_configs: Obj[] }).scrape_configs;
  assert.equal(jobs.length, 1);
  return jobs[0] as Obj;
}

/** The job a ServiceMonitor endpoint gives: its last relabeling to `job`, else jobLabel's value, else the Service's name. */
function serviceMonitorJob(endpoint: Obj): string {
  const toJob = ((endpoint.relabelings ?? []) as Obj[]).filter((r) => r.targetLabel === 'job');
  const last = toJob.at(-1);
  if (last !== undefined) {
    assert.ok(last.sourceLabels === undefined && (last.action ?? 'replace') === 'replace', 'a fixed job');
    return String(last.replacement);
  }
  const jobLabel = monitor.spec.jobLabel as string | undefined;
  return jobLabel === undefined ? String(service.metadata.name) : String(service.metadata.labels?.[jobLabel]);
}

/** Prometheus' name of a pod's label or annotation in service discovery. */
const sdName = (kind: 'label' | 'annotation', key: string): string => `__meta_kubernetes_pod_${kind}_${key.replace(/[^a-zA-Z0-9_]/g, '_')}`;

/** The discovery labels of the StatefulSet's pod at its metrics port. */
function podTarget(): Record<string, string> {
  const labels: Record<string, string> = { __meta_kubernetes_pod_container_port_name: 'metrics' };
  for (const [k, v] of Object.entries(pod.labels)) labels[sdName('label', k)] = String(v);
  for (const [k, v] of Object.entries(pod.annotations)) labels[sdName('annotation', k)] = String(v);
  return labels;
}

/** PromQL selectors `name{…}` of chainvisor's and the process's metrics, and bare names without one. */
function selectors(expr: string): { name: string; matchers: string }[] {
  const bare = [...expr.matchAll(/\b((?:chainvisor|process|nodejs)_[a-z_]+)\b(?!\{)/g)].map((m) => m[1]);
  assert.deepEqual(bare, [], `metrics without a selector in ${expr}`);
  return [...expr.matchAll(/\b((?:chainvisor|process|nodejs)_[a-z_]+)\{([^}]*)\}/g)].map((m) => ({ name: m[1] as string, matchers: m[2] as string }));
}

const board = JSON.parse(read('docs/grafana-dashboard.json')) as { templating: { list: Obj[] }; panels: Obj[] };
const variable = (name: string): Obj | undefined => board.templating.list.find((v) => v.name === name);
const rulesText = read('docs/prometheus-alerts.yml');
const ruleExprs = (parse(rulesText) as { groups: { rules: { expr: string }[] }[] }).groups.flatMap((g) => g.rules.map((r) => r.expr));
const ruleJobs = ruleExprs.flatMap((e) => [...e.matchAll(/\bjob\s*=~?\s*"([^"]*)"/g)].map((m) => m[1]));

describe('Kubernetes monitoring: one job name, the chain label, the board variables', () => {
  test('the alert rules filter on one job', () => {
    assert.ok(ruleJobs.length >= 2, 'the rules name the job');
    assert.deepEqual(new Set(ruleJobs), new Set(['chainvisor']));
  });

  test("the ServiceMonitor gives the rules' job and the pod's chain label", () => {
    for (const endpoint of monitor.spec.endpoints as Obj[]) assert.equal(serviceMonitorJob(endpoint), ruleJobs[0], `endpoint ${endpoint.port}`);
    assert.ok((monitor.spec.podTargetLabels as string[] | undefined)?.includes('chain'), 'podTargetLabels carries chain');
    assert.ok(pod.labels.chain, 'the pod has a chain label');
  });

  test("the pod-discovery job of docs/monitoring.md is the rules' job, keeps the StatefulSet's pods and copies chain", () => {
    const job = podScrapeJob();
    assert.equal(job.job_name, ruleJobs[0]);
    const target = podTarget();
    const relabels = job.relabel_configs as Obj[];
    for (const rule of relabels.filter((r) => r.action === 'keep')) {
      const value = (rule.source_labels as string[]).map((l) => target[l] ?? '').join(rule.separator ?? ';');
      assert.match(value, new RegExp(`^(?:${rule.regex})$`), `keep ${rule.source_labels} drops the pod`);
    }
    assert.ok(relabels.some((r) => r.target_label === 'chain' && r.source_labels?.[0] === sdName('label', 'chain')));
    assert.ok(!relabels.some((r) => r.target_label === 'job'), 'the job is the job_name');
  });

  test(
    "promtool accepts the pod-discovery job's relabelling",
    { skip: spawnSync('promtool', ['--version']).status === 0 ? false : 'promtool is not installed' },
    () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'k8s-scrape-'));
      try {
        const file = path.join(dir, 'prometheus.yml');
        // Debian's Prometheus is built without Kubernetes discovery: a static target stands in for it.
        const { kubernetes_sd_configs: sd, ...job } = podScrapeJob();
        assert.deepEqual(sd, [{ role: 'pod' }]);
        writeFileSync(file, JSON.stringify({ scrape_configs: [{ ...job, static_configs: [{ targets: ['127.0.0.1:9102'] }] }] }));
        const run = spawnSync('promtool', ['check', 'config', '--syntax-only', file], { encoding: 'utf8' });
        assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test("the board has job and chain variables, the job's default being the rules' job", () => {
    assert.equal(variable('job')?.current?.value, ruleJobs[0]);
    assert.equal(variable('chain')?.includeAll, true);
    assert.equal(variable('chain')?.allValue, '.*', 'All includes targets without a chain label');
  });

  test('every query of the board filters on $job, $chain and $instance', () => {
    const exprs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'expr' && typeof v === 'string') exprs.push(v);
          else walk(v);
        }
      }
    };
    walk(board.panels);
    assert.ok(exprs.length >= 20);
    for (const expr of exprs) {
      const found = selectors(expr);
      assert.ok(found.length > 0, expr);
      for (const { name, matchers } of found) {
        for (const want of ['job=~"$job"', 'chain=~"$chain"', 'instance=~"$instance"'])
          assert.ok(matchers.includes(want), `${name}{${matchers}} lacks ${want}`);
      }
    }
    for (const name of ['chain', 'instance']) assert.match(String(variable(name)?.query), /job=~"\$job"/, `the ${name} variable's values are the job's`);
  });
});
