#!/usr/bin/env node
// The version check first: on an older Node it says so, where the command line would fail to load.
import './node-version.js';

import('../dist/src/cli/index.js')
  .then(({ main }) => main(process.argv.slice(2)))
  .then((code) => {
    process.exitCode = code;
  });
