/**
 * A Plan's three faces: protobuf (stored, and served over gRPC), the JSON of query output (upgrade-module.md §2.1:
 * height as a decimal string, the zero time, `upgraded_client_state: null`) and the validation every
 * scheduling does.
 */
import { Plan as PlanProto } from 'cosmjs-types/cosmos/upgrade/v1beta1/upgrade.js';

import { zeroTimeSeconds, zeroTimeText } from '../util/time.js';
import { invalidRequest } from './errors.js';
import type { Plan } from './types.js';

export function planToProto(plan: Plan): PlanProto {
  return PlanProto.fromPartial({
    name: plan.name,
    height: BigInt(plan.height),
    info: plan.info,
    time: { seconds: zeroTimeSeconds, nanos: 0 },
  });
}

export function planFromProto(proto: PlanProto): Plan {
  return { name: proto.name, height: Number(proto.height), info: proto.info };
}

export function encodePlan(plan: Plan): Buffer {
  return Buffer.from(PlanProto.encode(planToProto(plan)).finish());
}

export function decodePlan(bytes: Uint8Array): Plan {
  return planFromProto(PlanProto.decode(bytes));
}

/** The JSON shape of a Plan in query output, fields in protobuf order. */
export interface PlanJson {
  name: string;
  time: string;
  height: string;
  info: string;
  upgraded_client_state: null;
}

export function planJson(plan: Plan | PlanProto): PlanJson {
  return {
    name: plan.name,
    time: zeroTimeText,
    height: String(plan.height),
    info: plan.info,
    upgraded_client_state: null,
  };
}

/** Plan.ValidateBasic: what every plan must satisfy before it can be scheduled. */
export function validatePlan(plan: Plan): void {
  if (plan.name.length === 0) throw invalidRequest('name cannot be empty');
  if (!(plan.height > 0)) throw invalidRequest('height must be greater than 0');
}

/** Plan.ShouldExecute: due at `height`. */
export function isDue(plan: Plan, height: number): boolean {
  return plan.height > 0 && plan.height <= height;
}
