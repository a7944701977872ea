/**
 * The built "binary": an executable Node script that bakes in its version and loads the node's code
 * by absolute URL, so it keeps working when a supervisor copies it elsewhere or extracts it from an
 * archive. Written without `import` statements or top-level await, so it runs whether Node treats it
 * as CommonJS (no package.json beside it) or as an ES module. A variant's options are baked in too.
 */
import type { VersionOptions } from '../versions.js';

export function launcherScript(options: { mainUrl: string; version: string; name: string; variant?: { name: string; options: VersionOptions } }): string {
  const variant = options.variant === undefined ? '' : `, variant: ${JSON.stringify(options.variant)}`;
  const label = options.variant === undefined ? options.version : `${options.variant.name} (from ${options.version})`;
  return `#!/usr/bin/env node
// ${options.name} ${label}: chainvisor's simulated Cosmos node (see docs/sim.md).
'use strict';
import(${JSON.stringify(options.mainUrl)})
  .then((sim) => sim.runSimd({ version: ${JSON.stringify(options.version)}, name: ${JSON.stringify(options.name)}${variant}, argv: process.argv.slice(2) }))
  .then(
    (code) => process.exit(code),
    (error) => {
      console.error(\`Error: cannot run the simulated node from ${options.mainUrl}: \${error && error.message}\`);
      console.error('Hint: run "npm run build" in the chainvisor checkout these versions were built from, or rebuild them');
      process.exit(1);
    },
  );
`;
}
