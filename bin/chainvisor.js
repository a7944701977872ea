#!/usr/bin/env node
// The version check first: on an older Node it says so, where the command line would fail to load.
import './node-version.js';

const { main } = await import('../dist/src/cli/index.js');
process.exitCode = await main(process.argv.slice(2));
