/**
 * Which files a reflection answer carries, as the Cosmos SDK's reflection server (a fork of
 * grpc-go's, `fileDescWithDependencies`) chooses them: the file asked for, then every file it
 * imports, transitively, breadth-first in import order — imports used only for options
 * (google/api/annotations, gogoproto, cosmos_proto, amino) included. Within one reflection stream a
 * file already sent is not sent again, except as the answer's first file.
 *
 * @grpc/reflection links files by the types their fields use, which leaves option-only imports out;
 * this replaces its dependency lookup with the import graph.
 */
import type { Server } from '@grpc/grpc-js';

/** The parts of @grpc/reflection's per-version implementation this module adjusts. */
export interface ReflectionImplementation {
  files?: Record<string, { name?: string; dependency?: string[] }>;
  fileEncodings?: Map<object, Uint8Array>;
  getFileDependencies?: (file: object) => object[];
}

/** The file's transitive imports, breadth-first in declaration order, each once, the file itself excluded. */
export function transitiveImports(files: Readonly<Record<string, { dependency?: string[] }>>, name: string): string[] {
  const seen = new Set([name]);
  const out: string[] = [];
  const queue = [...(files[name]?.dependency ?? [])];
  while (queue.length > 0) {
    const next = queue.shift() as string;
    if (seen.has(next) || files[next] === undefined) continue;
    seen.add(next);
    out.push(next);
    queue.push(...(files[next]?.dependency ?? []));
  }
  return out;
}

/** Makes the implementation answer with the import graph (see above); false if its internals changed. */
export function useImportGraph(implementation: ReflectionImplementation): boolean {
  const { files } = implementation;
  if (files === undefined || typeof implementation.getFileDependencies !== 'function') return false;
  const nameOf = new Map(Object.entries(files).map(([name, file]) => [file as object, name]));
  implementation.getFileDependencies = (file: object) => {
    const name = nameOf.get(file);
    return name === undefined ? [] : transitiveImports(files, name).map((dep) => files[dep] as object);
  };
  return true;
}

interface ReflectionResponse {
  fileDescriptorResponse?: { fileDescriptorProto?: Uint8Array[] };
}

type ReflectionStream = { write(response: ReflectionResponse): boolean };

/**
 * A stand-in for the server while @grpc/reflection registers itself: each reflection stream drops
 * from its answers the files it already sent (all but an answer's first), as the SDK's server does.
 */
export function perStreamFiles(server: Pick<Server, 'addService'>, names: ReadonlyMap<Uint8Array, string>): Pick<Server, 'addService'> {
  return {
    addService(service, implementation) {
      const handlers = implementation as Record<string, (stream: ReflectionStream) => void>;
      const wrapped: Record<string, (stream: ReflectionStream) => void> = {};
      for (const [method, handler] of Object.entries(handlers)) {
        wrapped[method] = (stream) => {
          const sent = new Set<string>();
          const write = stream.write.bind(stream);
          stream.write = (response) => {
            const list = response.fileDescriptorResponse?.fileDescriptorProto;
            if (list !== undefined && response.fileDescriptorResponse !== undefined) {
              response.fileDescriptorResponse.fileDescriptorProto = list.filter((bytes, i) => {
                const name = names.get(bytes);
                if (name === undefined) return true;
                const keep = i === 0 || !sent.has(name);
                sent.add(name);
                return keep;
              });
            }
            return write(response);
          };
          handler(stream);
        };
      }
      server.addService(service, wrapped);
    },
  };
}
