/**
 * Plan name → folder name under `upgrades/`, exactly as cosmovisor does it: lower-cased unless
 * COSMOVISOR_DISABLE_RECASE, then escaped like Go's url.PathEscape (`a b` → `a%20b`, `a/b` → `a%2Fb`).
 */
import { ChainvisorError, ExitCode } from '../errors/index.js';

/** Bytes Go's PathEscape leaves as they are: unreserved characters and `$ & + : = @`. */
const keep = /[A-Za-z0-9\-_.~$&+:=@]/;

export function pathEscape(segment: string): string {
  let out = '';
  for (const char of segment) {
    if (keep.test(char)) {
      out += char;
    } else {
      for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

export function upgradeDirName(planName: string, options: { recase: boolean }): string {
  if (planName === '' || planName === '.' || planName === '..' || /[\u0000-\u001f\u007f]/.test(planName)) {
    throw new ChainvisorError('CHAINVISOR_BAD_PLAN_NAME', `the upgrade name ${JSON.stringify(planName)} cannot be used as a folder name`, {
      hint: 'names must be non-empty, not "." or "..", and free of control characters; the plan on chain must be corrected',
      exitCode: ExitCode.upgradeFailed,
    });
  }
  return pathEscape(options.recase ? planName.toLowerCase() : planName);
}
