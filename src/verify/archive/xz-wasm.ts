/**
 * xz-embedded's WebAssembly decoder as the package xz-decompress (0.2.3) ships it: the one place
 * that knows the package's internals. Its public face is a web ReadableStream, which decode-xz.ts
 * does not use (Node 22's adapter between web and Node streams threw, uncaught, on a bomb stopped in
 * small chunks, #31): chainvisor drives the module's own functions instead.
 * Why, and the rest of its rules: docs/design/downloads.md#verifyarchivexz-wasmts.
 */
import { DecoderUnavailable } from './stream-error.js';

/** The module's exports chainvisor calls. */
export interface XzWasm {
  memory: { buffer: ArrayBuffer };
  create_context(): number;
  destroy_context(context: number): void;
  supply_input(context: number, size: number): void;
  get_next_output(context: number): number;
}

/** The package's class, as far as chainvisor reaches into it. */
interface XzStreamClass {
  _getModuleInstance?: () => Promise<void>;
  _moduleInstance?: { exports?: unknown };
}

const functions = ['create_context', 'destroy_context', 'supply_input', 'get_next_output'] as const;

let queue: Promise<unknown> = Promise.resolve();

/** A new instance of the decoder's module, for one stream. */
export function instantiateXz(): Promise<XzWasm> {
  const next = queue.then(async () => instantiateFrom(await import('xz-decompress')));
  // The queue holds neither the instance nor a failure.
  queue = next.then(
    () => undefined,
    () => undefined,
  );
  return next;
}

/** A new instance from the package's module namespace; DecoderUnavailable when its internals moved. */
export async function instantiateFrom(namespace: unknown): Promise<XzWasm> {
  // A webpack bundle marked __esModule: Node's ESM loader gives its exports as `default`, esbuild's
  // CommonJS bundle (the single executable) as the namespace itself.
  const module = ((namespace as { default?: unknown }).default ?? namespace) as { XzReadableStream?: XzStreamClass } | undefined;
  const stream = module?.XzReadableStream;
  if (typeof stream?._getModuleInstance !== 'function') throw moved('XzReadableStream._getModuleInstance() is gone');
  await stream._getModuleInstance();
  const exports = stream._moduleInstance?.exports as Partial<XzWasm> | undefined;
  // Ours alone from now on: the package keeps no reference to it.
  stream._moduleInstance = undefined;
  if (exports === undefined) throw moved('XzReadableStream._moduleInstance is not set by _getModuleInstance()');
  const missing = functions.filter((name) => typeof exports[name] !== 'function');
  if (missing.length > 0) throw moved(`the WebAssembly module has no ${missing.join(', ')}`);
  if (!(exports.memory?.buffer instanceof ArrayBuffer)) throw moved('the WebAssembly module exports no memory');
  return exports as XzWasm;
}

/**
 * One decoder context. It begins with six 32-bit fields: the buffer size, the input buffer's address,
 * the input's read position and size, the output buffer's address and the output's fill (the
 * package's XzContext reads the same).
 */
export interface XzContext {
  readonly bufSize: number;
  /** Hands the decoder up to `bufSize` bytes; an empty one says the input is over. */
  supply(data: Uint8Array): void;
  /** Decodes what it can: its xz_ret code and a copy of the output (the output buffer is then reused). */
  next(): { code: number; out: Buffer; full: boolean };
  /** Bytes of the last input supplied that the decoder has read. */
  position(): number;
  needsInput(): boolean;
  dispose(): void;
}

export function createXzContext(x: XzWasm): XzContext {
  const context = x.create_context();
  const fields = (): Uint32Array => new Uint32Array(x.memory.buffer, context, 6);
  const [bufSize = 0, inAt = 0, inPos, inSize, outAt = 0, outPos] = fields();
  const size = x.memory.buffer.byteLength;
  const fits = (at: number): boolean => at > 0 && at + bufSize <= size;
  if (!(bufSize > 0 && bufSize <= 1 << 24 && fits(inAt) && fits(outAt) && inPos === 0 && inSize === 0 && outPos === 0)) {
    x.destroy_context(context);
    throw moved(`its decoder context does not begin as chainvisor reads it (${[bufSize, inAt, inPos, inSize, outAt, outPos].join(', ')})`);
  }
  return {
    bufSize,
    supply(data) {
      new Uint8Array(x.memory.buffer, inAt, bufSize).set(data);
      x.supply_input(context, data.length);
    },
    next() {
      const code = x.get_next_output(context);
      // The memory may have grown (and its buffer changed) during the call.
      const state = fields();
      const length = state[5] ?? 0;
      const out = Buffer.from(new Uint8Array(x.memory.buffer, outAt, length));
      state[5] = 0;
      return { code, out, full: length === bufSize };
    },
    position: () => fields()[2] ?? 0,
    needsInput() {
      const state = fields();
      return state[2] === state[3];
    },
    dispose: () => x.destroy_context(context),
  };
}

function moved(detail: string): DecoderUnavailable {
  return new DecoderUnavailable(`this chainvisor's xz decoder (the package xz-decompress) is not the one it was built for: ${detail}`);
}
