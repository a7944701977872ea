/**
 * Heights the operator told the node to skip with `--unsafe-skip-upgrades`. The node skips the plan
 * itself; the supervisor must then not switch binaries either.
 * Accepted forms: `--unsafe-skip-upgrades 100 200` (cosmovisor's reading), `--unsafe-skip-upgrades=100,200`,
 * and the flag repeated.
 */
const flag = 'unsafe-skip-upgrades';

export function skipHeights(args: readonly string[]): Set<number> {
  const heights = new Set<number>();
  const add = (text: string) => {
    for (const part of text.split(',')) {
      if (/^\d+$/.test(part.trim())) heights.add(Number(part.trim()));
    }
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') break;
    const name = arg.replace(/^--?/, '');
    if (name.startsWith(`${flag}=`)) {
      add(name.slice(flag.length + 1));
    } else if (name === flag && arg.startsWith('-')) {
      for (let j = i + 1; j < args.length && !(args[j] as string).startsWith('-'); j++) add(args[j] as string);
    }
  }
  return heights;
}
