import { formatSettings, renderDocsTable, renderExample } from '../../config/index.js';
import { binaryPath, customPreUpgradeProblem, layoutFor, readCurrentDir, requireHome } from '../../home/layout/index.js';
import { ConfigError } from '../../shared/errors/index.js';
import { describeProxies, proxySettings, readTrustStore } from '../../shared/net/index.js';
import { defineCommand, writeLine } from '../command.js';
import { loadContextConfig } from '../settings.js';

export const configCommand = defineCommand({
  args: {
    options: {
      example: { type: 'boolean', help: 'print a config file with every default (what config.example.json holds)' },
      docs: { type: 'boolean', help: 'print the settings table in Markdown' },
    },
    exclusive: { options: ['example', 'docs'] },
  },
  help: [
    'Validates the configuration (environment over --config JSON file over --cosmovisor-config TOML file over',
    'defaults), then prints every setting with where it came from, the folders chainvisor will use, and where',
    "the node's gRPC and CometBFT RPC are read (DAEMON_GRPC_ADDRESS and CHAINVISOR_RPC_ADDRESS when set, else",
    "$DAEMON_HOME/config/app.toml and config.toml, else the defaults; 'run' also reads the node's flags).",
    'Refuses (exit 78) when $DAEMON_HOME or $DAEMON_HOME/cosmovisor does not exist.',
  ].join('\n'),
  async run(ctx, { values }) {
    if (values.example) {
      ctx.stdout.write(renderExample());
      return 0;
    }
    if (values.docs) {
      writeLine(ctx.stdout, renderDocsTable());
      return 0;
    }
    const loaded = loadContextConfig(ctx);
    const layout = layoutFor(loaded.config);
    await requireHome(layout);
    const script = await customPreUpgradeProblem(layout.root, loaded.config.customPreUpgrade);
    if (script) throw new ConfigError([{ setting: 'COSMOVISOR_CUSTOM_PREUPGRADE', value: loaded.config.customPreUpgrade, message: script }]);
    // The endpoint's address and the webhook URLs, refused here as `run` refuses them before the node starts.
    await (await import('../../observe/index.js')).checkObserverSettings(loaded.config);
    for (const line of formatSettings(loaded)) writeLine(ctx.stdout, line);
    const current = await readCurrentDir(layout);
    writeLine(ctx.stdout);
    writeLine(ctx.stdout, `config file          ${loaded.configFile ?? '(none)'}`);
    writeLine(ctx.stdout, `cosmovisor config    ${loaded.cosmovisorConfigFile ?? '(none)'}`);
    writeLine(ctx.stdout, `binaries root        ${layout.root}`);
    writeLine(ctx.stdout, `genesis binary       ${binaryPath(layout, 'genesis')}`);
    writeLine(ctx.stdout, `upgrades folder      ${layout.upgradesDir}`);
    writeLine(ctx.stdout, `current              ${layout.currentLink} -> ${current}`);
    writeLine(ctx.stdout, `running binary       ${binaryPath(layout, current)}`);
    writeLine(ctx.stdout, `upgrade-info.json    ${layout.upgradeInfoFile}`);
    writeLine(ctx.stdout, `backups              ${loaded.config.unsafeSkipBackup ? 'skipped (UNSAFE_SKIP_BACKUP)' : loaded.config.dataBackupDir}`);
    // Loaded here only: the chain reader's module brings the gRPC client.
    const { grpc, rpc } = await (await import('../node-addresses.js')).nodeAddresses(loaded, layout);
    writeLine(ctx.stdout, `grpc                 ${grpc.enabled ? grpc.address : 'off'} [${grpc.source}]`);
    writeLine(ctx.stdout, `rpc                  ${rpc.address} [${rpc.source}]`);
    writeLine(ctx.stdout);
    for (const line of describeProxies(proxySettings(ctx.env))) writeLine(ctx.stdout, line);
    const trust = await readTrustStore(ctx.env);
    writeLine(ctx.stdout, `trusted CAs          ${trust.certificates.length}: ${trust.sources.join('; ')}`);
    for (const skipped of trust.skipped) writeLine(ctx.stdout, `not read             ${skipped}`);
    return 0;
  },
});
