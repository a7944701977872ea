/** Types for the two CommonJS files of unbzip2-stream that decompress-bzip2.ts drives. */
declare module 'unbzip2-stream/lib/bit_iterator.js' {
  interface BitReader {
    (n: number | null): number;
    bytesRead: number;
  }
  const bitIterator: (next: () => Buffer | undefined) => BitReader;
  export default bitIterator;
}

declare module 'unbzip2-stream/lib/bzip2.js' {
  import type bitIterator from 'unbzip2-stream/lib/bit_iterator.js';
  type BitReader = ReturnType<typeof bitIterator>;
  const bzip2: {
    header(bits: BitReader): number;
    /** Decodes one block through `write`; returns the stream's CRC so far, or null after its end marker. */
    decompress(bits: BitReader, write: (byte: number) => void, buf: Int32Array, bufsize: number, streamCRC: number): number | null;
  };
  export default bzip2;
}
