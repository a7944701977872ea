/**
 * Reads the .proto files of the services the node serves, and every file they import, into one
 * protobufjs Root, remembering for each file its import path, package, syntax and imports (what a
 * FileDescriptorProto needs). The Cosmos SDK, CometBFT, gogoproto, cosmos_proto, amino and Google
 * files come from the @protobufs/* packages (import path `cosmos/…` is `@protobufs/cosmos/…`), the
 * gRPC reflection files from @grpc/reflection.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import protobuf from 'protobufjs';

export interface ProtoFile {
  /** The import path, which is also the descriptor's name: `cosmos/upgrade/v1beta1/query.proto`. */
  readonly name: string;
  readonly package: string;
  readonly syntax: 'proto2' | 'proto3';
  /** Import paths, in the file's order. */
  readonly imports: string[];
  /** The file's own options, as protobufjs's parsedOptions (protobufjs merges them into the package). */
  readonly options: Array<Record<string, unknown>>;
}

export interface ProtoSources {
  readonly root: protobuf.Root;
  /** Every file read, by name, in the order read. */
  readonly files: Map<string, ProtoFile>;
}

const require = createRequire(import.meta.url);
/** protobufjs's parser stamps `filename` from this static property (untyped) on every object it creates. */
const parser = protobuf.parse as typeof protobuf.parse & { filename: string | null };
const packageDirs = new Map<string, string>();

function packageDir(name: string): string {
  let dir = packageDirs.get(name);
  if (dir === undefined) {
    dir = dirname(require.resolve(`${name}/package.json`));
    packageDirs.set(name, dir);
  }
  return dir;
}

/** Where the source of an import path lives on disk. */
function sourcePath(name: string): string {
  const reflection = /^grpc\/reflection\/(v1|v1alpha)\/reflection\.proto$/.exec(name);
  if (reflection !== null) return join(packageDir('@grpc/reflection'), 'build', 'proto', name);
  const [top, ...rest] = name.split('/');
  return join(packageDir(`@protobufs/${top}`), ...rest);
}

/** A file's top-level `option name = value;` lines. */
function fileOptions(source: string): Array<Record<string, unknown>> {
  const options: Array<Record<string, unknown>> = [];
  for (const [, name, raw] of source.matchAll(/^option\s+(\(?[\w.]+\)?)\s*=\s*("(?:[^"\\]|\\.)*"|[\w.+-]+)\s*;/gm)) {
    const text = raw as string;
    const value = text.startsWith('"')
      ? (JSON.parse(text) as string)
      : text === 'true'
        ? true
        : text === 'false'
          ? false
          : /^-?\d+$/.test(text)
            ? Number(text)
            : text;
    options.push({ [name as string]: value });
  }
  return options;
}

/** Reads `names` and, transitively, what they import. */
export function readProtoSources(names: readonly string[]): ProtoSources {
  const sources: ProtoSources = { root: new protobuf.Root(), files: new Map() };
  readMore(sources, names);
  return sources;
}

/** Reads into `sources` those of `names` (and of their imports) it does not hold yet. */
export function readMore(sources: ProtoSources, names: readonly string[]): void {
  const { root, files } = sources;
  const visit = (name: string): void => {
    if (files.has(name)) return;
    const source = readFileSync(sourcePath(name), 'utf8');
    parser.filename = name;
    try {
      const parsed = protobuf.parse(source, root, { keepCase: true, alternateCommentMode: false });
      const syntax = /^\s*syntax\s*=\s*"proto2"/m.test(source) ? 'proto2' : 'proto3';
      const imports = [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])];
      files.set(name, { name, package: parsed.package ?? '', syntax, imports, options: fileOptions(source) });
    } finally {
      parser.filename = null;
    }
    for (const imported of files.get(name)?.imports ?? []) visit(imported);
  };
  for (const name of names) visit(name);
}

/**
 * Parses `text` (a `package …;` line and definitions) into `sources` as part of the already read file
 * `file`: its objects carry that file's name, as if they had been declared in it.
 */
export function parseInto(sources: ProtoSources, file: string, text: string): void {
  parser.filename = file;
  try {
    protobuf.parse(`syntax = "proto3";\n${text}`, sources.root, { keepCase: true, alternateCommentMode: false });
  } finally {
    parser.filename = null;
  }
}
