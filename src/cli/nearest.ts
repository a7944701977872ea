/** "did you mean …?" for a mistyped command: the one name within two edits (cobra suggests the same way). */

/** The closest of `names` to `typed` within two edits (insert, delete, substitute, swap), or undefined; a tie goes to the first listed. */
export function nearestName(typed: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(typed.toLowerCase(), name);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: Levenshtein, with a swap of two neighbours counted as one edit (`statsu`). */
function editDistance(a: string, b: string): number {
  const rows = [...Array<number[]>(a.length + 1)].map((_, i) => [...Array<number>(b.length + 1)].map((__, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => (rows[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = d;
    }
  }
  return at(a.length, b.length);
}
