/**
 * xz: xz-container.ts reads the container on the way in (filters, dictionary, the SHA-256 check), the
 * decoder is xz-embedded compiled to WebAssembly (package xz-decompress, inlined in its JavaScript, so
 * it works inside the single executable's bundle), and a last stage verifies the SHA-256 of each block
 * of a stream that has that check.
 *
 * The decoder is driven here, synchronously, through the WebAssembly module's own four functions
 * (create_context, supply_input, get_next_output, destroy_context; the package's XzContext does the
 * same), not through the package's web ReadableStream: Node 22's adapter between web and Node streams
 * threw "error.filter is not a function", uncaught, when a bomb was stopped while small chunks were
 * arriving, and `run` ended with a stack and its work folders left behind (#31). Synchronous calls
 * also need no lock between two xz streams, and each piece of output is put to the inflate guard as it
 * is produced: a 16 KiB piece of an xz bomb decodes to over 100 MB.
 */
import { createHash, type Hash } from 'node:crypto';
import { Transform } from 'node:stream';

import type { Decoder } from './decoder.js';
import type { InflateGuard } from './inflate-guard.js';
import { StreamError, truncated } from './stream-error.js';
import { type BlockCheck, createXzContainerWalk, maxDictionary } from './xz-container.js';

export const xz: Decoder = {
  magic: (b) => b.length >= 6 && b[0] === 0xfd && b[1] === 0x37 && b[2] === 0x7a && b[3] === 0x58 && b[4] === 0x5a && b[5] === 0x00,
  stages: (guard) => {
    const checks: BlockCheck[] = [];
    return [containerWalk(checks), decoder(guard), verifySha256(checks)];
  },
  explain: (error) => {
    if (error instanceof StreamError) return error.message;
    const code = error instanceof XzCodeError ? error.code : undefined;
    // xz-embedded's codes (xz.h: enum xz_ret).
    const xzCodes: Record<number, string> = {
      2: 'the integrity check type is not supported',
      3: 'out of memory',
      4: `the dictionary is larger than the ${maxDictionary >> 20} MiB the decoder reads`,
      5: 'not an xz stream, or bytes after its end that are not another stream',
      6: 'unsupported xz options',
      7: 'corrupt data (a check or size does not match)',
      8: 'the stream ends before its end marker: the file is truncated',
    };
    return code === undefined ? error.message : (xzCodes[code] ?? `decoder error ${code}`);
  },
};

class XzCodeError extends Error {
  constructor(readonly code: number) {
    super(`xz decoder error ${code}`);
  }
}

function containerWalk(checks: BlockCheck[]): Transform {
  const walk = createXzContainerWalk(checks);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        walk.push(chunk, (bytes) => void this.push(bytes));
      } catch (error) {
        callback(error as Error);
        return;
      }
      callback();
    },
    flush(callback) {
      callback(walk.complete ? null : truncated());
    },
  });
}

interface XzExports {
  memory: { buffer: ArrayBuffer };
  create_context(): number;
  destroy_context(context: number): void;
  supply_input(context: number, size: number): void;
  get_next_output(context: number): number;
}

let wasm: Promise<XzExports> | undefined;

/** The package's WebAssembly instance, compiled once, when the first xz stream arrives. */
function loadWasm(): Promise<XzExports> {
  wasm ??= (async () => {
    const namespace = (await import('xz-decompress')) as unknown as { default?: { XzReadableStream: unknown }; XzReadableStream: unknown };
    // A webpack bundle marked __esModule: Node's ESM loader gives its exports as `default`, esbuild's
    // CommonJS bundle (the single executable) as the namespace itself.
    const module = namespace.default ?? namespace;
    const stream = module.XzReadableStream as { _moduleInstance?: { exports: unknown }; _getModuleInstance?: () => Promise<void> };
    if (stream._moduleInstance === undefined) await stream._getModuleInstance?.();
    const exports = stream._moduleInstance?.exports as Partial<XzExports> | undefined;
    if (typeof exports?.create_context !== 'function' || !(exports.memory?.buffer instanceof ArrayBuffer)) {
      throw new Error('the xz-decompress package no longer has the WebAssembly functions chainvisor drives (was it upgraded?)');
    }
    return exports as XzExports;
  })();
  return wasm;
}

const okay = 0;
const streamEnd = 1;

/** One xz-embedded decoder (the package's XzContext, synchronous). */
function createContext(x: XzExports) {
  const context = x.create_context();
  // The context starts with bufSize, in, in_pos, in_size, out, out_pos (32-bit each).
  const fields = (): Uint32Array => new Uint32Array(x.memory.buffer, context, 6);
  const [bufSize = 0, inAt = 0, , , outAt = 0] = fields();
  return {
    bufSize,
    supply(data: Uint8Array): void {
      new Uint8Array(x.memory.buffer, inAt, bufSize).set(data);
      x.supply_input(context, data.length);
    },
    /** Decodes what it can; the output, whether the buffer was filled, whether the stream ended. */
    next(): { out: Buffer; full: boolean; ended: boolean } {
      const code = x.get_next_output(context);
      if (code !== okay && code !== streamEnd) throw new XzCodeError(code);
      const state = fields();
      const length = state[5] ?? 0;
      const out = Buffer.from(new Uint8Array(x.memory.buffer, outAt, length));
      state[5] = 0;
      return { out, full: length === bufSize, ended: code === streamEnd };
    },
    /** Bytes of the last piece supplied that the decoder has read. */
    position(): number {
      return fields()[2] ?? 0;
    },
    needsInput(): boolean {
      const state = fields();
      return state[2] === state[3];
    },
    dispose(): void {
      x.destroy_context(context);
    },
  };
}

function decoder(guard: InflateGuard): Transform {
  let context: ReturnType<typeof createContext> | undefined;
  let ended = false;
  /** Bytes of the pieces read whole, and whether a piece is being read (its position is the decoder's). */
  let read = 0;
  let reading = false;
  guard.readFrom(() => read + (reading && context !== undefined ? context.position() : 0));
  const open = async (): Promise<NonNullable<typeof context>> => (context ??= createContext(await loadWasm()));

  let produced = 0;
  /** Runs the decoder over what it was given; every piece goes to the guard before it is pushed. */
  const drain = (stream: Transform, decode: NonNullable<typeof context>, final: boolean): void => {
    let idle = 0;
    for (;;) {
      const { out, full, ended: end } = decode.next();
      if (out.length > 0) {
        produced += out.length;
        guard.check(produced);
        stream.push(out);
      }
      if (end) {
        ended = true;
        return;
      }
      if (final) {
        // At the end of input the decoder says STREAM_END or an error; never loop on no progress.
        idle = out.length === 0 ? idle + 1 : 0;
        if (idle > 2) throw truncated();
        continue;
      }
      if (!full && decode.needsInput()) return;
    }
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      open().then((decode) => {
        try {
          if (ended) throw new StreamError('bytes after the end of the xz stream');
          for (let at = 0; at < chunk.length; at += decode.bufSize) {
            const piece = chunk.subarray(at, at + decode.bufSize);
            decode.supply(piece);
            reading = true;
            drain(this, decode, false);
            reading = false;
            read += piece.length;
          }
          callback();
        } catch (error) {
          callback(error as Error);
        }
      }, callback);
    },
    flush(callback) {
      open().then((decode) => {
        try {
          if (!ended) {
            // An empty input tells xz-embedded that the stream is over.
            decode.supply(new Uint8Array(0));
            drain(this, decode, true);
          }
          callback();
        } catch (error) {
          callback(error as Error);
        }
      }, callback);
    },
    destroy(error, callback) {
      context?.dispose();
      context = undefined;
      callback(error);
    },
  });
}

/** Hashes each block of a SHA-256 stream as it comes out of the decoder and compares it with its check. */
function verifySha256(checks: BlockCheck[]): Transform {
  let fed = 0;
  let hash: Hash | undefined;
  /** Ends the first block once it is whole and its check is known. */
  const settle = (): void => {
    for (;;) {
      const block = checks[0];
      if (block === undefined || block.size === undefined || fed < block.size) return;
      if (block.wantsSha256) {
        if (block.sha256 === undefined) return;
        const digest = (hash ?? createHash('sha256')).digest();
        if (!digest.equals(block.sha256)) throw new StreamError('corrupt data (a block does not match its SHA-256 check)');
      }
      checks.shift();
      fed = 0;
      hash = undefined;
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        let at = 0;
        while (at < chunk.length) {
          settle();
          const block = checks[0];
          if (block === undefined) throw new StreamError('corrupt data (more bytes than the blocks hold)');
          const n = block.size === undefined ? chunk.length - at : Math.min(block.size - fed, chunk.length - at);
          if (block.wantsSha256) (hash ??= createHash('sha256')).update(chunk.subarray(at, at + n));
          fed += n;
          at += n;
          // A whole block whose check is not read yet: the next bytes cannot come before it is.
          if (n === 0) throw new StreamError('corrupt data (a block holds more bytes than its chunks)');
        }
        settle();
        callback(null, chunk);
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback) {
      try {
        settle();
        callback(checks.length === 0 ? null : truncated());
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}
