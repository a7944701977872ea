/**
 * The environment of the scratch's programs: the live node's `<NAME>_…` variables left out, the home
 * variables naming the scratch; and setting it in this process while pre-upgrade runs.
 */
import path from 'node:path';

import type { Layout } from '../home/layout/index.js';

/**
 * A Cosmos-SDK binary reads `<NAME>_<FLAG OR KEY>` variables over its flags and its config.toml and
 * app.toml (`GAIAD_P2P_PERSISTENT_PEERS`, `…_PRIV_VALIDATOR_LADDR`, `…_DB_DIR`, as container deployments
 * set them): every one of them is left out, or it would undo the scratch's config and reach the live
 * node's peers, signer or data. The home variables name the scratch; HOME too, so that a default
 * `--home` ($HOME/.<app>) is never the live one.
 */
export function scratchEnv(layout: Layout, scratch: string): NodeJS.ProcessEnv {
  const prefix = `${layout.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith(prefix)));
  if (scratch !== '') {
    env.DAEMON_HOME = scratch;
    env[`${prefix}HOME`] = scratch;
    env.HOME = path.join(scratch, 'home');
  }
  return env;
}

/** Sets the scratch's variables in this process (pre-upgrade inherits them); returns the undo. */
export function pushEnv(env: NodeJS.ProcessEnv): () => void {
  const before = { ...process.env };
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value;
  return () => {
    for (const key of Object.keys(process.env)) if (!(key in before)) delete process.env[key];
    Object.assign(process.env, before);
  };
}
