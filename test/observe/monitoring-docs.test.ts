/**
 * The ready-made monitoring in docs/ (Grafana dashboard, Prometheus alert rules) may only use metrics
 * chainvisor exports: every `chainvisor_*` name in them must appear in a real /metrics rendering.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { createMetrics, metricNames } from '../../src/observe/metrics.js';
import { createEventBus } from '../../src/shared/events/index.js';

const docs = path.resolve(fileURLToPath(import.meta.url), '../../../../docs');

/** chainvisor_* and process_* names in a PromQL text, histogram suffixes stripped. */
function namesIn(promql: string): string[] {
  return [...promql.matchAll(/\b((?:chainvisor|process)_[a-z_]+)\b/g)].map((m) => (m[1] as string).replace(/_(bucket|sum|count)$/, ''));
}

function exprsOfDashboard(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) exprsOfDashboard(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'expr' || key === 'query') && typeof value === 'string') out.push(value);
      else exprsOfDashboard(value, out);
    }
  }
  return out;
}

test('the dashboard and the alert rules use only metrics that exist', async () => {
  const metrics = createMetrics({ bus: createEventBus(), version: 'test', snapshot: async () => ({ nodeUp: true, current: 'genesis', pending: null }) });
  const exposed = new Set([...(await metrics.render()).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1] as string));
  metrics.close();
  for (const name of metricNames) assert.ok(exposed.has(name), `${name} is exported`);

  const dashboard = JSON.parse(await fs.readFile(path.join(docs, 'grafana-dashboard.json'), 'utf8')) as unknown;
  const alerts = await fs.readFile(path.join(docs, 'prometheus-alerts.yml'), 'utf8');
  const alertExprs = alerts
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#') && !/^\s*(summary|description):/.test(line))
    .join('\n');
  const used = new Map<string, string>();
  for (const expr of exprsOfDashboard(dashboard)) for (const name of namesIn(expr)) used.set(name, 'grafana-dashboard.json');
  for (const name of namesIn(alertExprs)) used.set(name, 'prometheus-alerts.yml');
  assert.ok(used.size >= 10, `the docs use the metrics (${[...used.keys()].join(', ')})`);
  for (const [name, file] of used) assert.ok(exposed.has(name), `${file} uses ${name}, which chainvisor does not export`);

  // The alerts the documentation promises are there.
  for (const alert of [
    'ChainvisorUpgradeBinaryNotStaged',
    'ChainvisorNodeDown',
    'ChainvisorUpgradeFailed',
    'ChainvisorCrashLoop',
    'ChainvisorValidatorNotSigning',
    'ChainvisorUpgradeStalled',
    'ChainvisorKeyInUse',
  ]) {
    assert.match(alerts, new RegExp(`alert: ${alert}\\b`));
  }
});
