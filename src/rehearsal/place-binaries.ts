/** The old and the new binary placed in the scratch's own cosmovisor/, linked or else copied. */
import fs from 'node:fs/promises';
import path from 'node:path';

import type { Layout } from '../home/layout/index.js';
import { ChainvisorError } from '../shared/errors/index.js';
import { copyRegular } from '../shared/fsread/index.js';
import type { Binaries } from './prepare.js';

/** The two binaries in the scratch's own cosmovisor/: `current -> genesis` (the old), `upgrades/<dir>` (the new). */
export async function placeBinaries(scratchLayout: Layout, binaries: Binaries): Promise<void> {
  const place = async (src: string, folder: string) => {
    await fs.mkdir(path.join(folder, 'bin'), { recursive: true });
    const dst = path.join(folder, 'bin', scratchLayout.name);
    try {
      await fs.link(await fs.realpath(src), dst);
    } catch {
      const copy = await copyRegular(src, dst, { mode: 0o755 });
      if (copy.status !== 'ok') {
        const why = copy.status === 'missing' ? 'it is gone' : copy.reason;
        throw new ChainvisorError('CHAINVISOR_REHEARSAL_UNAVAILABLE', `cannot copy ${src} into the rehearsal: ${why}`);
      }
      await fs.chmod(dst, 0o755);
    }
  };
  await place(binaries.oldBinary, scratchLayout.genesisDir);
  await place(binaries.newBinary, path.join(scratchLayout.root, binaries.dir));
  await fs.symlink('genesis', scratchLayout.currentLink);
}
