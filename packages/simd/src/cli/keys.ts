/**
 * The simulated keyring: the names `validator`, `alice` and `bob` (accounts in every genesis), or a
 * bech32 address given directly to `--from`.
 */
import { genesisKeyNames } from '../core/accounts.js';
import { addressPrefix, isBech32, keyAddress } from '../util/bech32.js';
import { UsageProblem } from './args.js';

export function resolveFrom(from: string | undefined): string {
  if (from === undefined || from === '') throw new UsageProblem('required flag "from" not set', 'pass --from validator (or alice, bob, or an address)');
  if ((genesisKeyNames as readonly string[]).includes(from)) return keyAddress(from);
  if (isBech32(from, addressPrefix)) return from;
  throw new UsageProblem(`${from}: key not found`, `the simulated keyring has ${genesisKeyNames.join(', ')}; or pass a ${addressPrefix}1… address`);
}

export function keyList(): Array<{ name: string; type: string; address: string }> {
  return genesisKeyNames.map((name) => ({ name, type: 'local', address: keyAddress(name) }));
}
