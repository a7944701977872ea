// chainvisor needs Node.js 22.19 or later (package.json `engines`): on an older Node it says so at once,
// before anything else runs, rather than failing somewhere later. The release executable carries its own
// Node.js. Imported first by bin/chainvisor.js, which loads the command line only after it: an older Node
// would otherwise fail on a module it cannot load or parse before this check ran.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `chainvisor: error: Node.js ${process.versions.node} is too old: chainvisor needs Node.js 22.19 or later\n` +
      'chainvisor: hint: install the release executable (it needs no Node.js), or run chainvisor with Node.js 22.19 or later\n' +
      'chainvisor: code: CHAINVISOR_NODE_TOO_OLD\n',
  );
  process.exit(1);
}
