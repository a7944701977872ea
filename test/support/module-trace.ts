/**
 * Loaded with `node --import` before bin/chainvisor.js: appends the URL of every module the process
 * loads to the file named by CHAINVISOR_TEST_MODULE_TRACE, so that a test can see what a command loads.
 */
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.CHAINVISOR_TEST_MODULE_TRACE;
if (out !== undefined && out !== '') {
  registerHooks({
    load(url, context, next) {
      appendFileSync(out, `${url}\n`);
      return next(url, context);
    },
  });
}
