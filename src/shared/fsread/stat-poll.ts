/**
 * A stat of one file every interval that calls back only when something about it changed (size, times,
 * inode, or it appeared or went): libuv's own file poll (fs.watchFile), whose stats and comparisons run
 * outside JavaScript. A poll written in JavaScript (an async stat and a read per tick) kept an idle
 * `chainvisor run` at twice the CPU, with steady garbage and collections; this one costs a thread-pool
 * stat and nothing else while the file stays as it is.
 */
import { unwatchFile, watchFile } from 'node:fs';

export interface StatPoll {
  close(): void;
}

/**
 * Polls `file` every `intervalMs`; `onChange` runs on each change, and once at the first poll when the
 * file is missing (fs.watchFile reports that as a change to a zeroed stat). `persistent: false` lets the
 * process exit while it polls.
 */
export function pollStat(file: string, intervalMs: number, onChange: () => void, options: { persistent?: boolean } = {}): StatPoll {
  // One listener per poll: unwatchFile removes just this one (Node shares one stat watcher per file).
  const listener = () => onChange();
  watchFile(file, { interval: Math.max(1, intervalMs), persistent: options.persistent ?? true }, listener);
  return { close: () => unwatchFile(file, listener) };
}
