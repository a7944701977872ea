/**
 * Protobuf responses in the JSON of the SDK's grpc-gateway (the REST API): proto field names, every
 * field present (defaults included, unset messages as null), 64-bit integers as strings, bytes in
 * base64 (empty ones as null), enums by name, Timestamps in RFC 3339, Durations as "<seconds>s", Any as
 * {"@type", …}.
 */
import protobuf from 'protobufjs';

import { protoTypes } from './reflection/index.js';

const int64Types = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** Go's RFC 3339 rendering of a fraction: none, or 3, 6 or 9 digits. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  let digits = String(nanos).padStart(9, '0');
  while (digits.endsWith('000')) digits = digits.slice(0, -3);
  return `.${digits}`;
}

function timestamp(seconds: number, nanos: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${fraction(nanos)}Z`;
}

type Decoded = Record<string, unknown>;

function message(type: protobuf.Type, value: Decoded): unknown {
  switch (type.fullName) {
    case '.google.protobuf.Timestamp':
      return timestamp(Number(value.seconds ?? 0), Number(value.nanos ?? 0));
    case '.google.protobuf.Duration':
      return `${String(value.seconds ?? 0)}${fraction(Math.abs(Number(value.nanos ?? 0)))}s`;
    case '.google.protobuf.Any': {
      const typeUrl = String(value.type_url ?? '');
      const inner = protoTypes().lookup(typeUrl.slice(typeUrl.lastIndexOf('/') + 1));
      if (!(inner instanceof protobuf.Type)) return { '@type': typeUrl, value: Buffer.from(value.value as Uint8Array).toString('base64') };
      return { '@type': typeUrl, ...(message(inner, inner.decode(value.value as Uint8Array) as unknown as Decoded) as Decoded) };
    }
    default: {
      const out: Decoded = {};
      // The gateway writes fields in field-number order.
      for (const field of [...type.fieldsArray].sort((a, b) => a.id - b.id)) {
        if (field.declaringField !== null) continue;
        out[field.name] = fieldValue(field, value[field.name]);
      }
      return out;
    }
  }
}

function scalar(field: protobuf.Field, value: unknown): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return message(resolved, value as Decoded);
  if (resolved instanceof protobuf.Enum) return resolved.valuesById[value as number] ?? value;
  if (int64Types.has(field.type)) return String(value ?? 0);
  if (field.type === 'bytes') return Buffer.from((value as Uint8Array | undefined) ?? []).toString('base64');
  return value;
}

function fieldValue(field: protobuf.Field, value: unknown): unknown {
  field.resolve();
  if (field.repeated) return ((value as unknown[] | undefined) ?? []).map((item) => scalar(field, item));
  if (field.resolvedType instanceof protobuf.Type && (value === undefined || value === null)) return null;
  // Empty bytes are absent on the wire: Go unmarshals them as a nil slice, which encoding/json writes as null.
  if (field.type === 'bytes' && ((value as Uint8Array | undefined) ?? []).length === 0) return null;
  return scalar(field, value);
}

/** `bytes`, a serialized `typeName` (`cosmos.base.tendermint.v1beta1.GetNodeInfoResponse`), as gateway JSON. */
export function gatewayJson(typeName: string, bytes: Uint8Array): unknown {
  const type = protoTypes().lookupType(typeName);
  return message(type, type.decode(bytes) as unknown as Decoded);
}
