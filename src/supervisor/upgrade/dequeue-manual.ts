/** Step of the upgrade (compose.ts): a manual upgrade, once switched, is taken off its queue (data/upgrade-info.json.batch). */
import type { StartOptions } from './start-node.js';

export async function dequeueManual({ manual, queue, follows }: StartOptions): Promise<void> {
  if (manual === undefined) return;
  // The follow's first block is then the one after the halt height (follow.ts).
  follows.manualApplied();
  await queue.remove([manual]);
}
