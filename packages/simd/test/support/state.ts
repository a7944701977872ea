/** Reads of the committed state for assertions. */
import { getProposal, govStorePrefix } from '../../src/gov/state.js';
import type { KVReader } from '../../src/store/kv.js';
import { prefixed } from '../../src/store/kv.js';
import { getDoneHeight, getModuleVersions, getPlan, getProtocolVersion } from '../../src/upgrade/keeper.js';
import { storePrefix } from '../../src/upgrade/keys.js';

export const upgradeState = (reader: KVReader) => {
  const kv = prefixed(reader, storePrefix);
  return {
    plan: () => getPlan(kv),
    done: (name: string) => getDoneHeight(kv, name),
    versions: () => getModuleVersions(kv),
    protocol: () => getProtocolVersion(kv),
  };
};

export const proposal = (reader: KVReader, id: string) => getProposal(prefixed(reader, govStorePrefix), id);
