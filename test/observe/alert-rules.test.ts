/**
 * docs/prometheus-alerts.yml as Prometheus runs it (issue #35): `promtool test rules` on
 * docs/prometheus-alerts.test.yml, which must hold, for every alert of the rules, a time it fires, a
 * time it is silent and a time it resolves (silent after firing); and docs/alertmanager.example.yml
 * as Alertmanager reads it (`amtool check-config`). Without Debian's `prometheus` and
 * `prometheus-alertmanager` these print a loud SKIPPED line (CI installs both).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { parse } from 'yaml';

const docs = path.resolve(fileURLToPath(import.meta.url), '../../../../docs');
const has = (tool: string): boolean => spawnSync(tool, ['--version']).status === 0;
const promtool = has('promtool') ? false : 'promtool is not installed (Debian: apt-get install prometheus)';
const amtool = has('amtool') ? false : 'amtool is not installed (Debian: apt-get install prometheus-alertmanager)';
for (const skip of [promtool, amtool]) if (skip) process.stderr.write(`\n!!! ALERT RULE TESTS SKIPPED: ${skip}\n\n`);

interface RuleTest {
  name?: string;
  alert_rule_test?: { eval_time: string; alertname: string; exp_alerts?: unknown[] }[];
}

const minutes = (text: string): number => Number(/^(\d+)m$/.exec(text)?.[1] ?? Number.NaN);

test('every alert has a test that makes it fire, keeps it silent and resolves it', async () => {
  const rules = parse(await fs.readFile(path.join(docs, 'prometheus-alerts.yml'), 'utf8')) as { groups: { rules: { alert?: string }[] }[] };
  const spec = parse(await fs.readFile(path.join(docs, 'prometheus-alerts.test.yml'), 'utf8')) as { tests: RuleTest[] };
  const alerts = rules.groups.flatMap((g) => g.rules.map((r) => r.alert)).filter((a): a is string => a !== undefined);
  assert.ok(alerts.length >= 9);
  for (const alert of alerts) {
    const evals = spec.tests
      .flatMap((t) => t.alert_rule_test ?? [])
      .filter((e) => e.alertname === alert)
      .sort((a, b) => minutes(a.eval_time) - minutes(b.eval_time));
    const firing = evals.findIndex((e) => (e.exp_alerts ?? []).length > 0);
    assert.ok(firing >= 0, `${alert}: a time it fires`);
    assert.ok(
      evals.some((e, i) => i < firing && (e.exp_alerts ?? []).length === 0),
      `${alert}: a time before it fires when it is silent`,
    );
    assert.ok(
      evals.some((e, i) => i > firing && (e.exp_alerts ?? []).length === 0),
      `${alert}: a time after it fired when it has resolved`,
    );
  }
});

test('promtool: the rules load, and their tests pass', { skip: promtool }, () => {
  assert.match(execFileSync('promtool', ['check', 'rules', path.join(docs, 'prometheus-alerts.yml')], { encoding: 'utf8' }), /SUCCESS: \d+ rules found/);
  // rule_files in the test file are relative to it.
  const run = spawnSync('promtool', ['test', 'rules', 'prometheus-alerts.test.yml'], { cwd: docs, encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /SUCCESS/);
});

test('amtool: the Alertmanager example is a valid configuration', { skip: amtool }, () => {
  const run = spawnSync('amtool', ['check-config', path.join(docs, 'alertmanager.example.yml')], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /SUCCESS/);
  assert.match(run.stdout, /5 receivers/);
});
