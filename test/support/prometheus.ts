/**
 * A real Prometheus for a test (REFERENCE §10; Debian's `prometheus` package): its own config, storage
 * in a temp folder and a free port, scraping the given targets every second and evaluating the given
 * rule files every second. `query` asks its HTTP API and fails on any error Prometheus reports.
 * `prometheusMissing` says why there is none (the tests then print a loud SKIPPED line).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

import { waitFor } from './home.js';
import { unusedPort } from './ports.js';

export const prometheusMissing: string | false =
  spawnSync('prometheus', ['--version']).status === 0 ? false : 'the prometheus binary is not installed (Debian: apt-get install prometheus)';

export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface Prometheus {
  url: string;
  /** An instant query: the vector it returns (an error Prometheus reports throws, with the expression). */
  query(expr: string): Promise<PromSample[]>;
  /** GET /api/v1/<what>: its `data`. */
  api<T>(what: string): Promise<T>;
  /** What Prometheus printed, for failure messages. */
  output(): string;
  close(): Promise<void>;
}

export async function startPrometheus(options: { dir: string; targets: string[]; ruleFiles?: string[] }): Promise<Prometheus> {
  const port = await unusedPort();
  const config = path.join(options.dir, 'prometheus.yml');
  await fs.writeFile(
    config,
    JSON.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: options.ruleFiles ?? [],
      scrape_configs: [{ job_name: 'chainvisor', scrape_interval: '1s', scrape_timeout: '900ms', static_configs: [{ targets: options.targets }] }],
    }),
  );
  const child: ChildProcess = spawn(
    'prometheus',
    [`--config.file=${config}`, `--storage.tsdb.path=${path.join(options.dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let printed = '';
  child.stdout?.on('data', (c: Buffer) => (printed += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (printed += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const api = async <T>(what: string): Promise<T> => {
    const response = await fetch(`${url}/api/v1/${what}`);
    const body = (await response.json()) as { status: string; data: T; error?: string; errorType?: string };
    if (body.status !== 'success') throw new Error(`Prometheus answered ${body.errorType ?? ''}: ${body.error ?? ''} (asked ${what})`);
    return body.data;
  };
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}:\n${printed}`);
        return (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200;
      },
      'prometheus ready',
      60_000,
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    api,
    async query(expr) {
      const data = await api<{ resultType: string; result: PromSample[] | [number, string] }>(`query?query=${encodeURIComponent(expr)}`).catch(
        (error: Error) => {
          throw new Error(`${error.message}\n  expression: ${expr}`);
        },
      );
      return data.resultType === 'vector' ? (data.result as PromSample[]) : [];
    },
    output: () => printed,
    close,
  };
}
