#!/usr/bin/env node
import './node-version.js';
import { main } from '../dist/src/cli/index.js';

process.exitCode = await main(process.argv.slice(2));
