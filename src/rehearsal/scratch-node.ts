/**
 * A node process of the rehearsal: the old binary's `in-place-testnet`, then the new binary's `start`.
 * Unlike the live node (src/supervisor/node-process.ts, output passed straight through), it runs as any program run
 * to its end (src/shared/proc, its own process group): its output kept in `<scratch>/node.log` and its last
 * lines in memory for the report, with the first `panic:` line noted; its peak resident memory sampled
 * from /proc (VmHWM); its RPC asked for the latest height. It never outlives chainvisor's own exit.
 */
import { createWriteStream } from 'node:fs';

import { ChainUnavailableError, createRpcClient } from '../chain/index.js';
import { readBounded } from '../shared/fsread/index.js';
import { startProgram } from '../shared/proc/index.js';

const tailLines = 40;
/** Longest line kept in node.log (a longer one is cut there). */
const maxLoggedLine = 64 * 1024;
const stopGraceMs = 5000;

export interface Exit {
  code: number | undefined;
  signal: NodeJS.Signals | undefined;
}

export interface ScratchNode {
  pid: number | undefined;
  exited: Promise<Exit>;
  hasExited(): boolean;
  /** The last `tailLines` lines of its output (stdout and stderr, in order). */
  tail(): string[];
  /** The first line that says the node failed, if any: Go's `panic: …`, or CometBFT's `CONSENSUS FAILURE!!!` (the process then stays up). */
  panicLine(): string | undefined;
  /** Peak resident memory in bytes seen so far (0 when it cannot be read). */
  peakRss(): number;
  /** SIGTERM to its process group, SIGKILL 5 s later. */
  stop(): Promise<Exit>;
}

export function startScratchNode(options: { binary: string; args: string[]; env: NodeJS.ProcessEnv; logFile: string }): ScratchNode {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  log.on('error', () => undefined);
  const lines: string[] = [];
  let panic: string | undefined;
  let peak = 0;
  let done = false;
  const stopping = new AbortController();
  const child = startProgram(options.binary, options.args, {
    env: options.env,
    signal: stopping.signal,
    killAfterMs: stopGraceMs,
    maxLineChars: maxLoggedLine,
    onLine: (line) => {
      log.write(`${line}\n`);
      lines.push(line.length > 2000 ? `${line.slice(0, 2000)}…` : line);
      if (lines.length > tailLines) lines.shift();
      if (panic === undefined && (/^panic: /.test(line) || line.includes('CONSENSUS FAILURE'))) panic = line;
    },
  });
  const sample = async () => {
    if (child.pid === undefined || done) return;
    try {
      const status = await readBounded(`/proc/${child.pid}/status`, 64 * 1024);
      const hwm = status.status === 'ok' ? /VmHWM:\s+(\d+) kB/.exec(status.text) : null;
      if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
    } catch {
      // gone, or not Linux
    }
  };
  const sampler = setInterval(() => void sample(), 200);
  void sample();
  const exited = child.done.then((result): Exit => {
    done = true;
    clearInterval(sampler);
    log.end();
    return result.cause ? { code: 127, signal: undefined } : { code: result.exitCode, signal: result.signal };
  });
  return {
    pid: child.pid,
    exited,
    hasExited: () => done,
    tail: () => [...lines],
    panicLine: () => panic,
    peakRss: () => peak,
    async stop() {
      if (!done) stopping.abort();
      return exited;
    },
  };
}

/** The latest block height the node's CometBFT RPC reports (read as the node's own RPC is); undefined while it does not answer. */
export async function rpcHeight(port: number): Promise<number | undefined> {
  const client = createRpcClient({ address: `tcp://127.0.0.1:${port}`, timeoutMs: 2000 });
  try {
    return await client.latestHeight();
  } catch (error) {
    if (error instanceof ChainUnavailableError) return undefined;
    throw error;
  } finally {
    client.close();
  }
}
