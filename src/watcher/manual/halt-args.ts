/**
 * The node's own `--halt-height` does the exact-height stop: the node commits block H and never H+1.
 * chainvisor adds `--halt-height=<first queued height>` to `start`. When the operator already passes
 * one, the lower of the two wins and the flag appears once: the operator's lower height is their own
 * halt (the node stops there, not an upgrade); an equal or higher one is replaced by the queued height.
 */

export interface HaltArgs {
  args: string[];
  /** The halt height the node runs with; 0 when none. */
  haltHeight: number;
  /** Whose halt that is: chainvisor's queued upgrade, the operator's own flag, or none. */
  owner: 'manual' | 'operator' | 'none';
}

/** The operator's `--halt-height` (as `--halt-height N` or `--halt-height=N`), 0 when absent. */
export function operatorHaltHeight(args: readonly string[]): number {
  let height = 0;
  args.forEach((arg, i) => {
    const value = arg.startsWith('--halt-height=') ? arg.slice('--halt-height='.length) : arg === '--halt-height' ? args[i + 1] : undefined;
    if (value !== undefined && /^\d+$/.test(value)) height = Number(value);
  });
  return height;
}

/** Is this a `start` of the node (the only command that takes --halt-height)? */
export function isStart(args: readonly string[]): boolean {
  const first = args.find((a) => !a.startsWith('-'));
  return first === 'start';
}

function withoutHaltHeight(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg.startsWith('--halt-height=')) continue;
    if (arg === '--halt-height') {
      i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** The node's arguments for a run whose first queued manual upgrade is at `queued` (0: none). */
export function haltArgs(args: readonly string[], queued: number): HaltArgs {
  const own = operatorHaltHeight(args);
  if (queued <= 0 || !isStart(args)) return { args: [...args], haltHeight: own, owner: own > 0 ? 'operator' : 'none' };
  if (own > 0 && own < queued) return { args: [...args], haltHeight: own, owner: 'operator' };
  return { args: [...withoutHaltHeight(args), `--halt-height=${queued}`], haltHeight: queued, owner: 'manual' };
}
