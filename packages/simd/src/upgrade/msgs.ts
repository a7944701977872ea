/**
 * The module's two messages (upgrade-module.md §1): MsgSoftwareUpgrade schedules a plan, MsgCancelUpgrade removes it.
 * Only the governance module account may execute them; a passed proposal executes them
 * as that account, a transaction signed by anyone else reaches the authority check and fails there.
 */
import { govAddress } from '../core/accounts.js';
import type { AnyMsg, MsgRoute } from '../core/msg.js';
import { prefixed } from '../store/kv.js';
import { invalidRequest } from '../util/errors.js';
import { invalidSigner } from './errors.js';
import { clearPlan, getPlan, scheduleUpgrade } from './keeper.js';
import { storePrefix } from './keys.js';
import type { Plan } from './types.js';

export const msgSoftwareUpgradeType = '/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade';
export const msgCancelUpgradeType = '/cosmos.upgrade.v1beta1.MsgCancelUpgrade';

/** The JSON of a MsgSoftwareUpgrade, as the CLI builds it. */
export function softwareUpgradeMsg(authority: string, plan: Plan): AnyMsg {
  return {
    '@type': msgSoftwareUpgradeType,
    authority,
    plan: { name: plan.name, time: '0001-01-01T00:00:00Z', height: String(plan.height), info: plan.info, upgraded_client_state: null },
  };
}

export function cancelUpgradeMsg(authority: string): AnyMsg {
  return { '@type': msgCancelUpgradeType, authority };
}

const authority = (msg: AnyMsg) => (typeof msg.authority === 'string' ? msg.authority : '');

function checkAuthority(msg: AnyMsg): void {
  if (authority(msg) !== govAddress) throw invalidSigner(govAddress, authority(msg));
}

function planOf(msg: AnyMsg): Plan {
  const raw = (msg.plan ?? {}) as { name?: unknown; height?: unknown; info?: unknown };
  const height = typeof raw.height === 'number' ? String(raw.height) : raw.height;
  if (height !== undefined && (typeof height !== 'string' || !/^-?\d+$/.test(height))) {
    throw invalidRequest(`invalid plan height ${JSON.stringify(raw.height)}: expected an integer`);
  }
  return {
    name: typeof raw.name === 'string' ? raw.name : '',
    height: height === undefined ? 0 : Number(height),
    info: typeof raw.info === 'string' ? raw.info : '',
  };
}

const softwareUpgrade: MsgRoute = {
  signer: authority,
  async execute(ctx, msg) {
    checkAuthority(msg);
    const plan = planOf(msg);
    const kv = prefixed(ctx.state, storePrefix);
    await scheduleUpgrade(kv, plan, ctx.height);
    ctx.log.info(`upgrade "${plan.name}" scheduled at height: ${plan.height}`, { module: 'x/upgrade' });
  },
};

const cancelUpgrade: MsgRoute = {
  signer: authority,
  async execute(ctx, msg) {
    checkAuthority(msg);
    const kv = prefixed(ctx.state, storePrefix);
    const plan = await getPlan(kv);
    clearPlan(kv);
    ctx.log.info(plan === undefined ? 'no upgrade scheduled; nothing to cancel' : `upgrade "${plan.name}" cancelled`, {
      module: 'x/upgrade',
    });
  },
};

export const upgradeRoutes: Readonly<Record<string, MsgRoute>> = {
  [msgSoftwareUpgradeType]: softwareUpgrade,
  [msgCancelUpgradeType]: cancelUpgrade,
};
