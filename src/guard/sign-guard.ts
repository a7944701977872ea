/**
 * The sign guard (issue #28): before every start of the node — `run`, a restart, the start after an
 * upgrade — the validator's `priv_validator_state.json` is compared with the highest (height, round,
 * step) this home has signed (./sign-record.ts). Behind it, the node is not started: exit 84,
 * CHAINVISOR_SIGN_STATE_BEHIND.
 * Why, and the rest of its rules: docs/design/double-sign.md#guardsignsign-guardts.
 */
import { cachedChainId } from '../chain/index.js';
import { ChainvisorError } from '../shared/errors/index.js';
import type { Logger } from '../shared/log.js';
import type { HomePaths } from './home-paths.js';
import { pointOf, raiseSignRecord, readSignRecords, signRecordPath } from './sign-record.js';
import { compareSignPoints, describePoint, nodeSigning, readSignStateFile, zeroPoint } from './sign-state.js';

export interface SignGuardOptions {
  layout: HomePaths;
  logger: Logger;
  /** CHAINVISOR_SIGN_GUARD. */
  mode: 'on' | 'off';
  /** How often the state file is read while the node runs (default one minute). */
  pollMs?: number;
}

export interface SignGuard {
  /**
   * Throws CHAINVISOR_SIGN_STATE_BEHIND (84) when the state file is behind what was signed; raises the
   * record otherwise. `signal` (chainvisor asked to stop) ends a long read of the genesis: then it throws.
   */
  beforeStart(signal?: AbortSignal): Promise<void>;
  /** Reads the state file every `pollMs` until `exited` settles, then once more. */
  watch(exited: Promise<unknown>): void;
  /** Waits for a reading under way. */
  close(): Promise<void>;
}

export function createSignGuard(options: SignGuardOptions): SignGuard {
  const { layout, logger, mode } = options;
  const pollMs = options.pollMs ?? 60_000;
  let saidRemote = false;
  let saidFailure = false;
  let pending: Promise<void> = Promise.resolve();
  const chainIdOf = cachedChainId();

  /** Whether the guard applies now; the node's signing facts when it does. */
  const applies = async () => {
    if (mode === 'off') return undefined;
    const signing = await nodeSigning(layout.home, layout.dataDir);
    return signing.remoteSigner === '' ? signing : undefined;
  };

  const observe = (): void => {
    pending = pending.then(async () => {
      try {
        const signing = await applies();
        if (signing === undefined) return;
        const point = await readSignStateFile(signing.stateFile);
        if (point === 'missing') return;
        await raiseSignRecord(layout, await chainIdOf(signing.genesisFile), point, signing.stateFile);
      } catch (error) {
        // Only a memory for the next start: never a reason to disturb the running node. Said once.
        if (saidFailure) return;
        saidFailure = true;
        logger.warn({ err: error }, `cannot record the validator's signing state: ${(error as Error).message}`);
      }
    });
  };

  return {
    async beforeStart(signal) {
      await pending;
      if (mode === 'off') {
        logger.warn(
          { setting: 'CHAINVISOR_SIGN_GUARD' },
          'CHAINVISOR_SIGN_GUARD=off: the node is started without checking that its signing state has not gone back (a double-sign risk after a restore)',
        );
        return;
      }
      const signing = await nodeSigning(layout.home, layout.dataDir);
      if (signing.remoteSigner !== '') {
        if (!saidRemote)
          logger.info(
            { signer: signing.remoteSigner },
            `config.toml names a remote signer (${signing.remoteSigner}): it guards the signing state; the sign guard is off`,
          );
        saidRemote = true;
        return;
      }
      const chainId = await chainIdOf(signing.genesisFile, signal);
      const file = await readSignStateFile(signing.stateFile);
      const point = file === 'missing' ? zeroPoint : file;
      const chains = await readSignRecords(layout);
      const known = chains.get(chainId);
      if (known !== undefined && compareSignPoints(point, pointOf(known)) < 0) {
        const remembered = pointOf(known);
        throw new ChainvisorError(
          'CHAINVISOR_SIGN_STATE_BEHIND',
          `the validator's signing state ${signing.stateFile} is at ${file === 'missing' ? 'nothing (the file is missing)' : describePoint(point)}, behind ${describePoint(remembered)}, which this home has signed on chain ${chainId} (seen ${known.time} in ${known.file}); started on it, the node could sign a second, different vote for a height it already signed — a double-sign, slashed and tombstoned. The node was not started`,
          {
            hint: `put back the priv_validator_state.json at height ${remembered.height} or later (from the data.replaced-* or other folder this data replaced; 'chainvisor restore' keeps the newest itself); only if this validator really never signed height ${remembered.height} on ${chainId} (a new network under the same chain id), remove ${signRecordPath(layout)} or start once with CHAINVISOR_SIGN_GUARD=off`,
          },
        );
      }
      if (file !== 'missing' && (known === undefined || compareSignPoints(point, pointOf(known)) > 0)) {
        await raiseSignRecord(layout, chainId, point, signing.stateFile, chains).catch((error: unknown) => {
          logger.warn({ err: error }, `cannot record the validator's signing state: ${(error as Error).message}`);
        });
      }
    },
    watch(exited) {
      if (mode === 'off') return;
      const timer = setInterval(observe, pollMs);
      timer.unref();
      const stop = (): void => {
        clearInterval(timer);
        observe();
      };
      exited.then(stop, stop); // a spawn that failed rejects `exited`: the supervisor reports that
    },
    async close() {
      await pending;
    },
  };
}
