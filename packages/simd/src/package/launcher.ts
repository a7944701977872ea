/**
 * The built "binary": an executable Node script that bakes in its version and loads the node's code
 * by absolute URL, so it keeps working when a supervisor copies it elsewhere or extracts it from an
 * archive. Written without `import` statements or top-level await, so it runs whether Node treats it
 * as CommonJS (no package.json beside it) or as an ES module.
 */
export function launcherScript(options: { mainUrl: string; version: string; name: string }): string {
  return `#!/usr/bin/env node
// ${options.name} ${options.version}: chainvisor's simulated Cosmos node (see docs/sim.md).
'use strict';
import(${JSON.stringify(options.mainUrl)})
  .then((sim) => sim.runSimd({ version: ${JSON.stringify(options.version)}, name: ${JSON.stringify(options.name)}, argv: process.argv.slice(2) }))
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
