/** What `add-upgrade --upgrade-height` and `add-batch-upgrade` print once the queue is written. */
import type { Layout } from '../../home/layout/index.js';
import { type CommandContext, writeLine } from '../command.js';
import type { ScheduleResult } from '../schedule.js';

export function reportSchedule(ctx: CommandContext, layout: Layout, result: ScheduleResult): void {
  for (const dest of result.installed) writeLine(ctx.stdout, `installed ${dest}`);
  writeLine(ctx.stdout, `manual upgrades queued in ${layout.batchFile}:`);
  for (const plan of result.queue) writeLine(ctx.stdout, `  ${plan.name} at height ${plan.height} (the new binary takes over at ${plan.height + 1})`);
  if ('unavailable' in result.chain) {
    writeLine(
      ctx.stderr,
      `warning: the heights were not checked against the chain (${result.chain.unavailable}); 'chainvisor run' checks them once the node answers`,
    );
  } else {
    writeLine(ctx.stdout, `the node is at height ${result.chain.height}`);
  }
}
