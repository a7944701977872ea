/** `chainvisor status` for one home: the live state of a running `run` when there is one, the home's files otherwise. */
import type { Layout } from '../../home/layout/index.js';
import { buildStatus, type StatusDocument } from './document.js';
import { readStatusFile } from './state-file.js';

/** For `chainvisor status`: the live state of a running `run` when there is one, the home otherwise. */
export async function statusOfHome(options: { layout: Layout; backupDir: string; recase?: boolean; version: string }): Promise<StatusDocument> {
  const file = await readStatusFile(options.layout);
  const live = file?.alive ? file.live : undefined;
  const history =
    file && !file.alive
      ? {
          lastUpgrade: file.live.lastUpgrade,
          backups: file.live.backups,
          afterUpgrade: file.live.afterUpgrade ?? null,
          twinCheck: file.live.twinCheck ?? null,
          homeMismatch: file.live.homeMismatch ?? null,
        }
      : undefined;
  return buildStatus({ ...options, live, history });
}
