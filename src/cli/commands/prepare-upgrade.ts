import { layoutFor } from '../../home/layout/index.js';
import { ChainvisorError, ExitCode } from '../../shared/errors/index.js';
import { defineCommand, writeLine } from '../command.js';
import { nodeAddresses } from '../node-addresses.js';
import { loadContextConfig, logOptions } from '../settings.js';

export const prepareUpgradeCommand = defineCommand({
  args: {},
  help: [
    "Reads the scheduled upgrade plan from the node's gRPC, or from its CometBFT RPC when gRPC is off or does",
    'not answer (addresses: DAEMON_GRPC_ADDRESS and CHAINVISOR_RPC_ADDRESS when set, else where the node',
    "chainvisor run started listens, else the node's config/app.toml and config/config.toml; 'chainvisor config'",
    'shows them), then downloads, verifies and installs the binary its Info names for this host into',
    'upgrades/<name>, exactly as the halt would. Does not',
    'need chainvisor run, nor DAEMON_ALLOW_DOWNLOAD_BINARIES (running it is the permission). An installed binary',
    'is left as it is. Exit 0 when staged or when no upgrade is scheduled; 79 when it cannot be staged or the',
    'node answers on neither.',
  ].join('\n'),
  async run(ctx) {
    const loaded = loadContextConfig(ctx);
    const { config } = loaded;
    const layout = layoutFor(config);
    // Loaded when used, so that other commands never evaluate gRPC, pino and the download code.
    const [{ createChainReader }, { createLogger }, { stagePlan }] = await Promise.all([
      import('../../chain/index.js'),
      import('../../shared/log.js'),
      import('../../download/staging/index.js'),
    ]);
    const logger = createLogger(logOptions(config));
    const client = createChainReader({ addresses: await nodeAddresses(loaded, layout) });
    // A node that answers on neither is a ChainUnavailableError naming both: exit 79 with the fix.
    const plan = await client.currentPlan().finally(() => client.close());
    const asked = `asked ${client.answeredBy() ?? client.describe()}`;
    if (plan === null) {
      writeLine(ctx.stdout, `no upgrade is scheduled on chain (${asked}); nothing to prepare`);
      return ExitCode.ok;
    }
    writeLine(ctx.stdout, `upgrade "${plan.name}" is scheduled on chain at height ${plan.height} (${asked})`);
    if (plan.info.trim() === '') {
      throw new ChainvisorError('CHAINVISOR_PLAN_NO_INFO', `upgrade "${plan.name}" at height ${plan.height} has no Info, so there is nothing to download`, {
        hint: `install its binary by hand: chainvisor add-upgrade ${plan.name} <path-to-binary>`,
      });
    }
    const result = await stagePlan({ plan, config, layout, logger });
    const what =
      result.status === 'downloaded' ? 'downloaded, verified and installed' : result.status === 'staged' ? 'was already staged' : 'was already installed';
    writeLine(ctx.stdout, `upgrade "${plan.name}" at height ${plan.height}: ${result.binary} ${what}`);
    return ExitCode.ok;
  },
});
