/**
 * The restore's signing safety (issue #28), home/backup's RestoreSigning, which `chainvisor restore`
 * hands to the restore: of the replaced data's and the backup's priv_validator_state.json the one
 * further ahead by (height, round, step) is kept, never the one that went back; what the sign record
 * remembers ahead of it is told before anything is touched, and the record is raised to it once the
 * data is in place.
 */
import path from 'node:path';

import * as v from 'valibot';

import { readChainId } from '../chain/index.js';
import { recordFields } from '../shared/fsread/index.js';
import type { HomePaths } from './home-paths.js';
import { pointOf, raiseSignRecord, readSignRecords } from './sign-record.js';
import { compareSignPoints, heightText, nodeSigning, readSignStateFile, roundNumber, type SignPoint, stepNumber } from './sign-state.js';

/** The kept state as a restore's journal notes it: checked as the sign record is. */
const keptSchema = v.strictObject({ chainId: v.string(), height: heightText, round: roundNumber, step: stepNumber, file: recordFields.absolutePath });

export function restoreSigning(layout: HomePaths) {
  return {
    plan: (dataDir: string, backup: string) => planSigning(layout, dataDir, backup),
    keptSchema,
    async raise(kept: v.InferOutput<typeof keptSchema>): Promise<void> {
      const point: SignPoint = { height: BigInt(kept.height), round: kept.round, step: kept.step };
      await raiseSignRecord(layout, kept.chainId, point, kept.file);
    },
  };
}

/** Which signing state a restore keeps, and what the sign record remembers ahead of it (home/backup's SigningPlan). */
async function planSigning(layout: HomePaths, dataDir: string, backup: string) {
  const signing = await nodeSigning(layout.home, layout.dataDir);
  const chainId = await readChainId(signing.genesisFile);
  const rel = path.relative(layout.dataDir, signing.stateFile);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    return { rel: undefined, replaced: 'missing' as const, backup: 'missing' as const, kept: 'none' as const, chainId, rememberedAhead: undefined };
  }
  // Either file unreadable refuses the restore (CHAINVISOR_SIGN_STATE_UNREADABLE): which is ahead cannot be told.
  const replaced = await readSignStateFile(path.join(dataDir, rel));
  const fromBackup = await readSignStateFile(path.join(backup, rel));
  let kept: 'replaced' | 'backup' | 'none' = 'none';
  if (replaced !== 'missing' && (fromBackup === 'missing' || compareSignPoints(replaced, fromBackup) >= 0)) kept = 'replaced';
  else if (fromBackup !== 'missing') kept = 'backup';
  const keptPoint = kept === 'replaced' ? replaced : kept === 'backup' ? fromBackup : undefined;
  const remembered = (await readSignRecords(layout)).get(chainId);
  const rememberedPoint = remembered && pointOf(remembered);
  const rememberedAhead =
    rememberedPoint !== undefined && (keptPoint === undefined || compareSignPoints(rememberedPoint, keptPoint as SignPoint) > 0) ? rememberedPoint : undefined;
  return { rel, replaced, backup: fromBackup, kept, chainId, rememberedAhead };
}
