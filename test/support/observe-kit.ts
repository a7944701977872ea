/** Reaching a running `chainvisor run`'s endpoint from a test, and reading Prometheus text. */
import fs from 'node:fs/promises';
import path from 'node:path';

import { type TestHome, waitFor } from './home.js';

/** Where `run` listens (it was asked for port 0), from the status file it keeps. */
export async function endpointOf(t: Pick<TestHome, 'home'>): Promise<string> {
  const file = path.join(t.home, 'cosmovisor', '.chainvisor', 'status.json');
  let address = '';
  await waitFor(
    async () => {
      try {
        address = (JSON.parse(await fs.readFile(file, 'utf8')) as { live: { chainvisor: { http: string | null } } }).live.chainvisor.http ?? '';
      } catch {
        return false;
      }
      return address !== '';
    },
    'the status file names the endpoint',
    30_000,
  );
  return `http://${address}`;
}

/** The value of one series (`name{labels}`) in Prometheus text; undefined when absent. */
export function sample(metrics: string, series: string): number | undefined {
  for (const line of metrics.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}
