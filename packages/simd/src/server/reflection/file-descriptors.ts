/**
 * Turns the loaded .proto files into serialized FileDescriptorProtos, one per source file, with its
 * real name, package and dependency list and fully-qualified type names — what a reflection client
 * (grpcurl, grpc-js-reflection-client) needs to link the files and resolve every type, with their
 * options (gogoproto, cosmos_proto, amino, google.api.http…) as the .proto files set them.
 */
import protobuf from 'protobufjs';

import { type ProtoFile, type ProtoSources, readMore } from './proto-sources.js';

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

type Options = Array<Record<string, unknown>> | Record<string, unknown> | null | undefined;

/**
 * protobufjs's options of an object as a `google.protobuf.<kind>Options` message object: standard
 * options by their field name, custom ones (`(gogoproto.nullable)`, `(google.api.http).get`) by the
 * extension's full name, under which protobufjs has added them to the options type.
 */
function optionsProto(root: protobuf.Root, kind: string, options: Options): Record<string, unknown> | undefined {
  if (options === null || options === undefined) return undefined;
  const entries = Array.isArray(options) ? options.flatMap((entry) => Object.entries(entry)) : Object.entries(options);
  if (entries.length === 0) return undefined;
  const type = root.lookupType(`google.protobuf.${kind}Options`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const custom = /^\((\.?[\w.]+)\)(?:\.([\w.]+))?$/.exec(key);
    const name = custom === null ? key : `.${(custom[1] as string).replace(/^\./, '')}`;
    const field = type.fields[name];
    if (field === undefined) continue; // protobufjs's own keys (`default`, `proto3_optional`), or an unloaded extension
    let item = value;
    if (custom?.[2] !== undefined) item = custom[2].split('.').reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);
    const previous = out[name];
    if (field.repeated) out[name] = [...((previous as unknown[] | undefined) ?? []), item];
    else if (typeof previous === 'object' && previous !== null && typeof item === 'object' && item !== null) out[name] = { ...previous, ...item };
    else out[name] = item;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function fieldProto(root: protobuf.Root, field: protobuf.Field, syntax: Syntax, oneofs: protobuf.OneOf[]): Record<string, unknown> {
  if (field instanceof protobuf.MapField) throw new Error(`map field ${field.fullName} is not supported by the descriptor builder`);
  field.resolve();
  const proto: Record<string, unknown> = { name: field.name, number: field.id, json_name: jsonName(field.name) };
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) {
    proto.type = 14;
    proto.type_name = absolute(resolved);
  } else if (resolved instanceof protobuf.Type) {
    proto.type = field.delimited ? 10 : 11;
    proto.type_name = absolute(resolved);
  } else {
    const type = scalarTypes[field.type];
    if (type === undefined) throw new Error(`field ${field.fullName} has unknown type ${field.type}`);
    proto.type = type;
  }
  proto.label = field.repeated ? 3 : field.required && syntax === 'proto2' ? 2 : 1;
  if (field.partOf !== null) proto.oneof_index = oneofs.indexOf(field.partOf);
  if (field.declaringField === null && field.extend !== undefined) {
    proto.extendee = field.extensionField === null ? field.extend : absolute(field.extensionField.parent as protobuf.Type);
  }
  if (field.options?.default !== undefined) proto.default_value = String(field.options.default);
  const options = optionsProto(root, 'Field', field.parsedOptions ?? field.options);
  if (options !== undefined) proto.options = options;
  return proto;
}

function enumProto(root: protobuf.Root, type: protobuf.Enum): Record<string, unknown> {
  const valuesOptions = (type as protobuf.Enum & { valuesOptions?: Record<string, Record<string, unknown>> }).valuesOptions;
  return {
    name: type.name,
    value: Object.entries(type.values).map(([name, number]) => {
      const options = optionsProto(root, 'EnumValue', valuesOptions?.[name]);
      return { name, number, ...(options === undefined ? {} : { options }) };
    }),
    ...withOptions(optionsProto(root, 'Enum', type.parsedOptions ?? type.options)),
  };
}

const withOptions = (options: Record<string, unknown> | undefined) => (options === undefined ? {} : { options });

function messageProto(root: protobuf.Root, type: protobuf.Type, syntax: Syntax): Record<string, unknown> {
  const oneofs = type.oneofsArray;
  const nested = type.nestedArray;
  return {
    name: type.name,
    // Extensions declared elsewhere show up on the extended type too (as `.pkg.name`): not its own fields.
    field: type.fieldsArray.filter((f) => f.declaringField === null).map((field) => fieldProto(root, field, syntax, oneofs)),
    extension: nested.filter((n): n is protobuf.Field => n instanceof protobuf.Field).map((f) => fieldProto(root, f, syntax, [])),
    nested_type: nested.filter((n): n is protobuf.Type => n instanceof protobuf.Type).map((t) => messageProto(root, t, syntax)),
    enum_type: nested.filter((n): n is protobuf.Enum => n instanceof protobuf.Enum).map((e) => enumProto(root, e)),
    oneof_decl: oneofs.map((oneof) => ({ name: oneof.name })),
    extension_range: (type.extensions ?? []).map(([start = 0, end = start]) => ({ start, end: Math.min(end, 536870911) + 1 })),
    reserved_range: (type.reserved ?? []).filter((r): r is number[] => Array.isArray(r)).map(([start, end]) => ({ start, end: (end ?? start ?? 0) + 1 })),
    reserved_name: (type.reserved ?? []).filter((r): r is string => typeof r === 'string'),
    ...withOptions(optionsProto(root, 'Message', type.parsedOptions ?? type.options)),
  };
}

function serviceProto(root: protobuf.Root, service: protobuf.Service): Record<string, unknown> {
  return {
    name: service.name,
    method: service.methodsArray.map((method) => {
      method.resolve();
      return {
        name: method.name,
        input_type: absolute(method.resolvedRequestType as protobuf.Type),
        output_type: absolute(method.resolvedResponseType as protobuf.Type),
        ...(method.requestStream === true ? { client_streaming: true } : {}),
        ...(method.responseStream === true ? { server_streaming: true } : {}),
        ...withOptions(optionsProto(root, 'Method', method.parsedOptions ?? method.options)),
      };
    }),
    ...withOptions(optionsProto(root, 'Service', service.parsedOptions ?? service.options)),
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

/**
 * Every loaded file's FileDescriptorProto, serialized, by file name. They are encoded with the
 * loaded descriptor.proto itself, whose options types carry the loaded extensions.
 */
export function fileDescriptors(sources: ProtoSources): Map<string, Uint8Array> {
  readMore(sources, ['google/protobuf/descriptor.proto']);
  const { root, files } = sources;
  root.resolveAll();
  const byFile = new Map<string, protobuf.ReflectionObject[]>();
  for (const object of topLevel(root)) {
    if (object.filename === null || !files.has(object.filename)) continue;
    const list = byFile.get(object.filename) ?? [];
    list.push(object);
    byFile.set(object.filename, list);
  }
  const fileType = root.lookupType('google.protobuf.FileDescriptorProto');
  const encoded = new Map<string, Uint8Array>();
  for (const file of files.values()) {
    const objects = byFile.get(file.name) ?? [];
    const proto = {
      name: file.name,
      package: file.package,
      dependency: file.imports,
      message_type: objects.filter((o): o is protobuf.Type => o instanceof protobuf.Type).map((t) => messageProto(root, t, file.syntax)),
      enum_type: objects.filter((o): o is protobuf.Enum => o instanceof protobuf.Enum).map((e) => enumProto(root, e)),
      service: objects.filter((o): o is protobuf.Service => o instanceof protobuf.Service).map((s) => serviceProto(root, s)),
      extension: objects.filter((o): o is protobuf.Field => o instanceof protobuf.Field).map((f) => fieldProto(root, f, file.syntax, [])),
      ...withOptions(optionsProto(root, 'File', file.options)),
      ...(file.syntax === 'proto3' ? { syntax: 'proto3' } : {}),
    };
    encoded.set(file.name, fileType.encode(fileType.fromObject(proto)).finish());
  }
  return encoded;
}
