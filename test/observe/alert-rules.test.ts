/**
 * ChainvisorKeyInUse (issue #32) in docs/prometheus-alerts.yml, evaluated by Prometheus' own promtool:
 * `run` exits 84 right after key-in-use, so the alert must fire from the one scrape that read
 * `chainvisor_key_in_use 1` (the endpoint stays up for it) and keep firing after the target is gone.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const rules = path.resolve(fileURLToPath(import.meta.url), '../../../../docs/prometheus-alerts.yml');
const promtool = spawnSync('promtool', ['--version']).status === 0;

test(
  'ChainvisorKeyInUse fires from a single scraped 1 and for 30 minutes after it',
  { skip: promtool ? false : 'promtool (Debian: prometheus) is not installed' },
  async (t) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'alert-rules-'));
    t.after(() => fs.rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'key-in-use.yml');
    const alert = (instance: string) => ({
      exp_labels: { instance, job: 'chainvisor', severity: 'critical' },
      exp_annotations: {
        summary: `${instance}: this validator's key signs on another machine; the node is stopped`,
        description:
          "Find the other machine running the key (a failover node, an old VM back after a migration, a restored snapshot, a copied key) and stop it before starting this node again. 'chainvisor status' names the height and the RPC.",
      },
    });
    const spec = {
      rule_files: [rules],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            // One scrape reads 1, then the target is gone (chainvisor exited 84).
            { series: 'chainvisor_key_in_use{instance="a",job="chainvisor"}', values: '0 0 1 _x40' },
            { series: 'chainvisor_key_in_use{instance="b",job="chainvisor"}', values: '0x40' },
          ],
          alert_rule_test: [
            { eval_time: '1m', alertname: 'ChainvisorKeyInUse', exp_alerts: [] },
            { eval_time: '10m', alertname: 'ChainvisorKeyInUse', exp_alerts: [alert('a')] },
            { eval_time: '40m', alertname: 'ChainvisorKeyInUse', exp_alerts: [] },
          ],
        },
      ],
    };
    // promtool reads YAML, of which JSON is a subset.
    await fs.writeFile(file, JSON.stringify(spec));
    const output = execFileSync('promtool', ['test', 'rules', file], { encoding: 'utf8' });
    assert.match(output, /SUCCESS/);
  },
);
