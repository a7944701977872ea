import fs from 'node:fs/promises';
import path from 'node:path';

import { renderCosmovisorToml } from '../../config/index.js';
import { checkLayoutShape, checkSourceBinary, genesis, installBinary, layoutFor, switchCurrent } from '../../home/layout/index.js';
import { ExitCode, isErrno, isFsError, layoutFsError } from '../../shared/errors/index.js';
import { exists } from '../../shared/fsread/index.js';
import { makeFolders, writeFileAtomic } from '../../shared/fswrite/index.js';
import { defineCommand, writeLine } from '../command.js';
import { loadContextConfig } from '../settings.js';

export const initCommand = defineCommand({
  args: {
    positionals: [{ name: 'path-to-binary', what: 'the path of the node binary', required: true }],
    options: { force: { type: 'boolean', help: 'replace a different genesis binary' } },
  },
  help: [
    'Creates $DAEMON_HOME/cosmovisor/{genesis/bin,upgrades}, copies the binary to genesis/bin/$DAEMON_NAME,',
    "points 'current' at genesis (a relative link) and writes $DAEMON_HOME/cosmovisor/config.toml with the",
    "resolved settings in cosmovisor's format (an existing config.toml is kept). Safe to run again: an",
    "identical binary is left as it is, and an existing 'current' (perhaps already upgraded) is never reset.",
    'The binary and the existing layout are checked before anything is created.',
  ].join('\n'),
  async run(ctx, { values, positionals }) {
    const source = positionals[0] as string;
    // Everything is checked before anything is created.
    await checkSourceBinary(source);
    const { config } = loadContextConfig(ctx);
    const layout = layoutFor(config);
    await checkLayoutShape(layout);

    try {
      await makeFolders(layout.upgradesDir);
    } catch (error) {
      throw isFsError(error) ? layoutFsError(layout.upgradesDir, 'create', error) : error;
    }
    const { dest, unchanged } = await installBinary(layout, genesis, source, { force: values.force });
    writeLine(ctx.stdout, unchanged ? `genesis binary already installed at ${dest}` : `installed ${source} as ${dest}`);
    try {
      const target = await fs.readlink(layout.currentLink);
      writeLine(ctx.stdout, `current already points at ${target}; left as it is`);
    } catch (error) {
      if (!isErrno(error, 'ENOENT')) throw isFsError(error) ? layoutFsError(layout.currentLink, 'read', error) : error;
      await switchCurrent(layout, genesis);
      writeLine(ctx.stdout, `current -> ${genesis}`);
    }
    const toml = path.join(layout.root, 'config.toml');
    if (
      await exists(toml).catch((error: unknown) => {
        throw isFsError(error) ? layoutFsError(toml, 'examine', error) : error;
      })
    ) {
      writeLine(ctx.stdout, `${toml} already exists; left as it is`);
    } else {
      try {
        await writeFileAtomic(toml, renderCosmovisorToml(config), 0o644);
      } catch (error) {
        throw isFsError(error) ? layoutFsError(toml, 'write', error) : error;
      }
      writeLine(ctx.stdout, `cosmovisor config.toml created at ${toml}`);
    }
    return ExitCode.ok;
  },
});
