/**
 * Fake node binaries: small POSIX shell scripts that behave like a node as far as the supervisor
 * can tell. Every run appends a record to a shared journal so tests can assert which binary ran,
 * with which arguments, in which order.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export interface FakeNodeOptions {
  /** Written to the journal: which binary ran. */
  label: string;
  /** Journal file (one line per event). */
  journal: string;
  /** When set, the node halts for this plan after `haltAfterMs`. */
  halt?: {
    plan: Record<string, unknown> | string;
    /** `exit`: exit 1 after writing the file (the SDK's default); `stay`: keep running. */
    style: 'exit' | 'stay';
    /** `atomic` (temp + rename), `pieces` (a partial write, a pause, then the rest), `direct`. */
    write?: 'atomic' | 'pieces' | 'direct';
    afterMs?: number;
  };
  /** Exit code after running `runMs` without halting (default: run until signalled). */
  exitCode?: number;
  runMs?: number;
  /** Ignore SIGTERM (the supervisor must SIGKILL after the grace period). */
  ignoreTerm?: boolean;
  /** Exit codes of successive `pre-upgrade` calls; the last one repeats. Default 1 (not implemented). */
  preUpgrade?: number[];
  /** Printed by `version`. */
  version?: string;
  /** Extra shell run at start (before anything else). */
  onStart?: string;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function fakeNodeScript(options: FakeNodeOptions): string {
  const j = shellQuote(options.journal);
  const label = shellQuote(options.label);
  const pre = options.preUpgrade ?? [1];
  const halt = options.halt;
  const planText = halt === undefined ? '' : typeof halt.plan === 'string' ? halt.plan : JSON.stringify(halt.plan);
  const lines = [
    '#!/bin/sh',
    `J=${j}`,
    `L=${label}`,
    'case "$1" in',
    '  pre-upgrade)',
    // A counter file beside the journal makes successive calls return successive codes.
    `    C="$J.$L.pre"; n=$(cat "$C" 2>/dev/null || echo 0); echo $((n+1)) > "$C"`,
    `    codes=${shellQuote(pre.join(' '))}; i=0; code=${pre[pre.length - 1]}`,
    '    for c in $codes; do [ $i -eq $n ] && code=$c; i=$((i+1)); done',
    '    echo "$L pre-upgrade $code" >> "$J"; exit $code ;;',
    `  version) echo ${shellQuote(options.version ?? options.label)}; exit 0 ;;`,
    'esac',
    options.onStart ?? '',
    // The traps come before the start line: a test that signals once it reads "start" must find them set.
    options.ignoreTerm ? `trap 'echo "$L got TERM (ignored)" >> "$J"' TERM` : `trap 'echo "$L got TERM" >> "$J"; exit 143' TERM`,
    `trap 'echo "$L got INT" >> "$J"; exit 130' INT`,
    `trap 'echo "$L got HUP" >> "$J"' HUP`,
    'printf "%s start" "$L" >> "$J"; for a in "$@"; do printf " [%s]" "$a" >> "$J"; done; echo >> "$J"',
  ];
  if (halt) {
    const file = '"$DAEMON_HOME/data/upgrade-info.json"';
    // "halted" goes to the journal before the plan is written: chainvisor may kill the node the moment
    // the file appears, before a line written after it.
    lines.push(`sleep ${(halt.afterMs ?? 100) / 1000}`, `echo "$L halted" >> "$J"`, 'mkdir -p "$DAEMON_HOME/data"');
    // A node that exits at its halt is on its way out once the plan is written: a TERM sent the moment
    // chainvisor sees the file ends it with the same exit, and no line of its own (a race, not a step).
    if (halt.style === 'exit') lines.push(`trap 'exit 1' TERM`);
    const write = halt.write ?? 'atomic';
    if (write === 'atomic') {
      lines.push(`printf '%s' ${shellQuote(planText)} > "$DAEMON_HOME/data/.upgrade-info.tmp"`, `mv "$DAEMON_HOME/data/.upgrade-info.tmp" ${file}`);
    } else if (write === 'direct') {
      lines.push(`printf '%s' ${shellQuote(planText)} > ${file}`);
    } else {
      const cut = Math.floor(planText.length / 2);
      lines.push(`printf '%s' ${shellQuote(planText.slice(0, cut))} > ${file}`, 'sleep 0.4', `printf '%s' ${shellQuote(planText.slice(cut))} >> ${file}`);
    }
    if (halt.style === 'exit') lines.push('exit 1');
  } else if (options.runMs !== undefined) {
    lines.push(`sleep ${options.runMs / 1000}`, `echo "$L exit ${options.exitCode ?? 0}" >> "$J"`, `exit ${options.exitCode ?? 0}`);
  }
  // Keep running until signalled; sleep in short steps so traps run promptly.
  lines.push('while :; do sleep 0.05; done');
  return `${lines.join('\n')}\n`;
}

export async function writeFakeNode(dir: string, options: FakeNodeOptions): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, options.label);
  await fs.writeFile(file, fakeNodeScript(options), { mode: 0o755 });
  return file;
}

export function plan(name: string, height: number, info?: string): Record<string, unknown> {
  return { name, time: '0001-01-01T00:00:00Z', height, ...(info === undefined ? {} : { info }) };
}
