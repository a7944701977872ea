/**
 * Turns the loaded .proto files into serialized FileDescriptorProtos, one per source file, with its
 * real name, package and dependency list and fully-qualified type names — what a reflection client
 * (grpcurl, grpc-js-reflection-client) needs to link the files and resolve every type. Custom options
 * (gogoproto, cosmos_proto, amino, google.api.http) are not carried: they change no wire format.
 */
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import type { ProtoFile, ProtoSources } from './proto-sources.js';

type Syntax = ProtoFile['syntax'];

/** FieldDescriptorProto.Type numbers of the scalar types. */
const scalarTypes: Readonly<Record<string, number>> = {
  double: 1,
  float: 2,
  int64: 3,
  uint64: 4,
  int32: 5,
  fixed64: 6,
  fixed32: 7,
  bool: 8,
  string: 9,
  bytes: 12,
  uint32: 13,
  sfixed32: 15,
  sfixed64: 16,
  sint32: 17,
  sint64: 18,
};
const packable = new Set(Object.keys(scalarTypes).filter((t) => t !== 'string' && t !== 'bytes'));

const absolute = (object: protobuf.ReflectionObject) => object.fullName; // protobufjs writes it as `.pkg.Name`
/** protoc's json_name: underscores dropped, the character after each one upper-cased. */
function jsonName(name: string): string {
  let out = '';
  let upper = false;
  for (const char of name) {
    if (char === '_') {
      upper = true;
    } else {
      out += upper ? char.toUpperCase() : char;
      upper = false;
    }
  }
  return out;
}

function fieldProto(field: protobuf.Field, syntax: Syntax, oneofs: protobuf.OneOf[]): Record<string, unknown> {
  if (field instanceof protobuf.MapField) throw new Error(`map field ${field.fullName} is not supported by the descriptor builder`);
  field.resolve();
  const proto: Record<string, unknown> = { name: field.name, number: field.id, jsonName: jsonName(field.name) };
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) {
    proto.type = 14;
    proto.typeName = absolute(resolved);
  } else if (resolved instanceof protobuf.Type) {
    proto.type = field.delimited ? 10 : 11;
    proto.typeName = absolute(resolved);
  } else {
    const type = scalarTypes[field.type];
    if (type === undefined) throw new Error(`field ${field.fullName} has unknown type ${field.type}`);
    proto.type = type;
  }
  proto.label = field.repeated ? 3 : field.required && syntax === 'proto2' ? 2 : 1;
  if (field.partOf !== null) proto.oneofIndex = oneofs.indexOf(field.partOf);
  if (field.declaringField === null && field.extend !== undefined) {
    proto.extendee = field.extensionField === null ? field.extend : absolute(field.extensionField.parent as protobuf.Type);
  }
  const options: Record<string, unknown> = {};
  if (field.options?.deprecated === true) options.deprecated = true;
  // proto2 packs only when asked; proto3 packs repeated scalars unless told not to.
  const explicitPacked = field.options?.packed;
  if (field.repeated && packable.has(field.type) && explicitPacked !== undefined) options.packed = explicitPacked;
  if (field.options?.default !== undefined) proto.defaultValue = String(field.options.default);
  if (Object.keys(options).length > 0) proto.options = options;
  return proto;
}

function enumProto(type: protobuf.Enum): Record<string, unknown> {
  return { name: type.name, value: Object.entries(type.values).map(([name, number]) => ({ name, number })) };
}

function messageProto(type: protobuf.Type, syntax: Syntax): Record<string, unknown> {
  const oneofs = type.oneofsArray;
  const nested = type.nestedArray;
  return {
    name: type.name,
    // Extensions declared elsewhere show up on the extended type too (as `.pkg.name`): not its own fields.
    field: type.fieldsArray.filter((f) => f.declaringField === null).map((field) => fieldProto(field, syntax, oneofs)),
    extension: nested.filter((n): n is protobuf.Field => n instanceof protobuf.Field).map((f) => fieldProto(f, syntax, [])),
    nestedType: nested.filter((n): n is protobuf.Type => n instanceof protobuf.Type).map((t) => messageProto(t, syntax)),
    enumType: nested.filter((n): n is protobuf.Enum => n instanceof protobuf.Enum).map(enumProto),
    oneofDecl: oneofs.map((oneof) => ({ name: oneof.name })),
    extensionRange: (type.extensions ?? []).map(([start = 0, end = start]) => ({ start, end: Math.min(end, 536870911) + 1 })),
    reservedRange: (type.reserved ?? []).filter((r): r is number[] => Array.isArray(r)).map(([start, end]) => ({ start, end: (end ?? start ?? 0) + 1 })),
    reservedName: (type.reserved ?? []).filter((r): r is string => typeof r === 'string'),
    ...(type.options?.map_entry === true ? { options: { mapEntry: true } } : {}),
  };
}

function serviceProto(service: protobuf.Service): Record<string, unknown> {
  return {
    name: service.name,
    method: service.methodsArray.map((method) => {
      method.resolve();
      return {
        name: method.name,
        inputType: absolute(method.resolvedRequestType as protobuf.Type),
        outputType: absolute(method.resolvedResponseType as protobuf.Type),
        ...(method.requestStream === true ? { clientStreaming: true } : {}),
        ...(method.responseStream === true ? { serverStreaming: true } : {}),
      };
    }),
  };
}

/** The top-level definitions (not nested in a message) of every namespace, with the file each came from. */
function topLevel(ns: protobuf.NamespaceBase, into: protobuf.ReflectionObject[] = []): protobuf.ReflectionObject[] {
  for (const object of ns.nestedArray) {
    if (object instanceof protobuf.Type || object instanceof protobuf.Enum || object instanceof protobuf.Service) into.push(object);
    else if (object instanceof protobuf.Field) into.push(object);
    else if (object instanceof protobuf.Namespace) topLevel(object, into);
  }
  return into;
}

/** Every loaded file's FileDescriptorProto, serialized, by file name. */
export function fileDescriptors(sources: ProtoSources): Map<string, Uint8Array> {
  const { root, files } = sources;
  root.resolveAll();
  const byFile = new Map<string, protobuf.ReflectionObject[]>();
  for (const object of topLevel(root)) {
    if (object.filename === null || !files.has(object.filename)) continue;
    const list = byFile.get(object.filename) ?? [];
    list.push(object);
    byFile.set(object.filename, list);
  }
  const encoded = new Map<string, Uint8Array>();
  for (const file of files.values()) {
    const objects = byFile.get(file.name) ?? [];
    const proto = {
      name: file.name,
      package: file.package,
      dependency: file.imports,
      messageType: objects.filter((o): o is protobuf.Type => o instanceof protobuf.Type).map((t) => messageProto(t, file.syntax)),
      enumType: objects.filter((o): o is protobuf.Enum => o instanceof protobuf.Enum).map(enumProto),
      service: objects.filter((o): o is protobuf.Service => o instanceof protobuf.Service).map(serviceProto),
      extension: objects.filter((o): o is protobuf.Field => o instanceof protobuf.Field).map((f) => fieldProto(f, file.syntax, [])),
      ...(file.syntax === 'proto3' ? { syntax: 'proto3' } : {}),
    };
    const message = descriptor.FileDescriptorProto.fromObject(proto);
    encoded.set(file.name, descriptor.FileDescriptorProto.encode(message).finish());
  }
  return encoded;
}
