/**
 * The module's key layout (upgrade-module.md §2.5), inside the store prefix `s/upgrade/`:
 *   0x0            the current Plan (protobuf cosmos.upgrade.v1beta1.Plan)
 *   0x1 + name     done marker: big-endian height at which the plan was applied
 *   0x2 + module   big-endian uint64 consensus version of the module
 *   0x3            big-endian protocol version
 */
export const storePrefix = 's/upgrade/';

export const planByte = 0x0;
export const doneByte = 0x1;
export const versionByte = 0x2;
export const protocolVersionByte = 0x3;

export const planKey = Buffer.from([planByte]);
export const protocolVersionKey = Buffer.from([protocolVersionByte]);

export function doneKey(name: string): Buffer {
  return Buffer.concat([Buffer.from([doneByte]), Buffer.from(name, 'utf8')]);
}

export function versionKey(module: string): Buffer {
  return Buffer.concat([Buffer.from([versionByte]), Buffer.from(module, 'utf8')]);
}
