/** A process's CPU time and memory from /proc (Linux), for the idle benchmarks. */
import fs from 'node:fs/promises';

/** CPU time of every thread of `pid`, in ns (the first field of each thread's schedstat). */
export async function cpuNs(pid: number): Promise<number> {
  let total = 0;
  for (const tid of await fs.readdir(`/proc/${pid}/task`)) {
    const text = await fs.readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').catch(() => '0');
    total += Number(text.split(' ')[0]);
  }
  return total;
}

/** VmRSS and RssAnon, in MiB. */
export async function memory(pid: number): Promise<{ rss: number; anon: number }> {
  const text = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  return { rss: field('VmRSS'), anon: field('RssAnon') };
}
