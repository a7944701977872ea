/** Amounts with a denomination, written `10000000stake` on the command line (upgrade-module.md §4.4). */
import { invalidRequest } from './errors.js';

export interface Coin {
  denom: string;
  /** A non-negative integer as a decimal string, as in Cosmos JSON. */
  amount: string;
}

/** Parses `10000000stake` or `5stake,3atom`; throws the SDK's invalid-request error otherwise. */
export function parseCoins(text: string): Coin[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const match = /^\s*(\d+)([a-zA-Z][a-zA-Z0-9/:._-]{2,127})\s*$/.exec(part);
    if (match === null) throw invalidRequest(`invalid coin expression: ${JSON.stringify(part)}; expected <amount><denom>, e.g. 10000000stake`);
    return { denom: match[2] as string, amount: BigInt(match[1] as string).toString() };
  });
}

export function formatCoins(coins: readonly Coin[]): string {
  return coins.map((c) => `${c.amount}${c.denom}`).join(',');
}

/** Sums coins by denomination. */
export function addCoins(a: readonly Coin[], b: readonly Coin[]): Coin[] {
  const totals = new Map<string, bigint>();
  for (const coin of [...a, ...b]) totals.set(coin.denom, (totals.get(coin.denom) ?? 0n) + BigInt(coin.amount));
  return [...totals.entries()].sort(([x], [y]) => x.localeCompare(y)).map(([denom, amount]) => ({ denom, amount: amount.toString() }));
}

/** True when `have` holds at least `need` of every denomination in `need`. */
export function coversCoins(have: readonly Coin[], need: readonly Coin[]): boolean {
  return need.every((n) => BigInt(have.find((h) => h.denom === n.denom)?.amount ?? '0') >= BigInt(n.amount));
}
