/**
 * What chainvisor assumes of xz-decompress's internals (src/verify/archive/xz-wasm.ts), pinned: an
 * upgrade of the package that moves them fails here, not on the night of an upgrade. And what happens
 * if one does anyway: every xz stream is refused with CHAINVISOR_DECODER_UNAVAILABLE, naming what moved.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compress } from '../../../scripts/make-compressed-archives.js';
import { fakeBinary } from '../../../scripts/make-hostile-archives.js';
import { ExitCode } from '../../../src/shared/errors/index.js';
import { decompressError } from '../../../src/verify/archive/decompress.js';
import { DecoderUnavailable } from '../../../src/verify/archive/stream-error.js';
import { createXzContext, instantiateFrom, instantiateXz, type XzWasm } from '../../../src/verify/archive/xz-wasm.js';

/** Decodes `data` with one context, as decode-xz.ts does (without its stream plumbing). */
function decodeAll(x: XzWasm, data: Buffer): Buffer {
  const context = createXzContext(x);
  const out: Buffer[] = [];
  const drain = (): number => {
    for (;;) {
      const { code, out: piece, full } = context.next();
      out.push(piece);
      if (code !== 0 || (!full && context.needsInput())) return code;
    }
  };
  try {
    for (let at = 0; at < data.length; at += context.bufSize) {
      context.supply(data.subarray(at, at + context.bufSize));
      assert.equal(drain(), 0);
    }
    context.supply(new Uint8Array(0));
    assert.equal(drain(), 1, 'STREAM_END after the last byte');
    return Buffer.concat(out);
  } finally {
    context.dispose();
  }
}

describe('xz-decompress, as chainvisor drives it', () => {
  test('XzReadableStream._getModuleInstance() leaves the module in _moduleInstance, with the four functions and its memory', async () => {
    const namespace = (await import('xz-decompress')) as unknown as { default?: { XzReadableStream: unknown }; XzReadableStream?: unknown };
    const stream = (namespace.default ?? namespace).XzReadableStream as { _getModuleInstance: unknown; _moduleInstance: unknown };
    assert.equal(typeof stream._getModuleInstance, 'function');
    const x = await instantiateXz();
    for (const name of ['create_context', 'destroy_context', 'supply_input', 'get_next_output'] as const) assert.equal(typeof x[name], 'function', name);
    assert.ok(x.memory.buffer instanceof ArrayBuffer);
    assert.equal(stream._moduleInstance, undefined, 'the package keeps no reference to the instance chainvisor took');
  });

  test('a context begins with the fields chainvisor reads, and decodes a stream to its bytes', async () => {
    const x = await instantiateXz();
    const context = createXzContext(x);
    assert.equal(context.bufSize, 64 * 1024);
    context.dispose();
    const binary = Buffer.concat([Buffer.from(fakeBinary()), Buffer.alloc(300_000, 'chainvisor ')]);
    // Several buffers in and out, and a SHA-256-free check the decoder verifies itself.
    assert.deepEqual(decodeAll(x, compress('xz', binary, ['-6', '--check=crc64'])), binary);
  });

  test('each stream gets an instance of its own, so its memory (its dictionary) goes with it', async () => {
    const [a, b] = await Promise.all([instantiateXz(), instantiateXz()]);
    assert.notEqual(a.memory, b.memory);
  });
});

describe('a package whose internals moved', () => {
  const refused = async (namespace: unknown, what: RegExp): Promise<void> => {
    await assert.rejects(instantiateFrom(namespace), (error: unknown) => {
      assert.ok(error instanceof DecoderUnavailable);
      assert.match(error.message, /the package xz-decompress\) is not the one it was built for/);
      assert.match(error.message, what);
      return true;
    });
  };

  test('no _getModuleInstance, no _moduleInstance, a function or the memory missing: DecoderUnavailable, naming it', async () => {
    await refused({}, /_getModuleInstance\(\) is gone/);
    await refused({ XzReadableStream: class {} }, /_getModuleInstance\(\) is gone/);
    await refused({ XzReadableStream: { _getModuleInstance: async () => undefined } }, /_moduleInstance is not set/);
    const exports = {
      memory: { buffer: new ArrayBuffer(64 * 1024) },
      create_context: () => 0,
      destroy_context: () => undefined,
      supply_input: () => undefined,
    };
    const withInstance = (value: unknown) => ({
      XzReadableStream: {
        async _getModuleInstance(this: { _moduleInstance?: unknown }) {
          this._moduleInstance = { exports: value };
        },
      },
    });
    await refused(withInstance(exports), /no get_next_output/);
    await refused(withInstance({ ...exports, memory: undefined, get_next_output: () => 0 }), /exports no memory/);
  });

  test('a context laid out otherwise: DecoderUnavailable before anything is decoded', () => {
    const memory = { buffer: new ArrayBuffer(64 * 1024) };
    let destroyed = false;
    const x: XzWasm = {
      memory,
      create_context: () => 1024,
      destroy_context: () => void (destroyed = true),
      supply_input: () => undefined,
      get_next_output: () => 0,
    };
    // The fields as a changed layout could leave them: no buffer size, addresses outside the memory.
    new Uint32Array(memory.buffer, 1024, 6).set([0, 1 << 30, 0, 0, 1 << 30, 0]);
    assert.throws(() => createXzContext(x), /its decoder context does not begin as chainvisor reads it/);
    assert.ok(destroyed, 'the context is given back');
  });

  test('the operator reads CHAINVISOR_DECODER_UNAVAILABLE (exit 79), a fault of this build with what to do, never "corrupt data"', async () => {
    const cause = await instantiateFrom({}).then(
      () => new Error('not refused'),
      (error: unknown) => error as Error,
    );
    const error = decompressError({ what: 'linux/amd64 binary', url: 'https://example.test/simd.tar.xz' }, 'xz', cause);
    assert.equal(error.code, 'CHAINVISOR_DECODER_UNAVAILABLE');
    assert.equal(error.exitCode, ExitCode.upgradeFailed);
    assert.match(error.message, /^cannot decompress the linux\/amd64 binary from https:\/\/example.test\/simd.tar.xz \(xz\): this chainvisor's xz decoder/);
    assert.doesNotMatch(error.message, /corrupt|truncated/);
    assert.match(error.hint ?? '', /release executable.*add-upgrade/);
  });
});
