/**
 * An xz block header, checked before its bytes reach the decoder for what the decoder cannot say: a
 * filter other than LZMA2 (`xz --x86`, `--arm`, `--delta`…) is refused as unsupported rather than as
 * corrupt data, and a dictionary larger than the decoder takes is named with its size.
 */
import { crc32 } from 'node:zlib';

import { formatBytes } from '../../shared/units.js';
import { UnsupportedError } from './stream-error.js';
import { corrupt, readVarint } from './xz-fields.js';

const lzma2 = 0x21;
/** The dictionary size xz-decompress builds its decoder with (XZ_DYNALLOC, 1 << 26). */
export const maxDictionary = 1 << 26;

const filterNames: Record<number, string> = {
  0x03: 'delta',
  0x04: 'x86 BCJ',
  0x05: 'PowerPC BCJ',
  0x06: 'IA-64 BCJ',
  0x07: 'ARM BCJ',
  0x08: 'ARM-Thumb BCJ',
  0x09: 'SPARC BCJ',
  0x0a: 'ARM64 BCJ',
  0x0b: 'RISC-V BCJ',
};

/** Throws unless `h` (the whole header, its CRC32 last) is one the decoder reads. */
export function checkBlockHeader(h: Buffer): void {
  if (crc32(h.subarray(0, h.length - 4)) !== h.readUInt32LE(h.length - 4)) throw corrupt('a block header does not match its CRC32');
  const blockFlags = h[1] as number;
  if ((blockFlags & 0x3c) !== 0) throw new UnsupportedError('an xz block header has flags this version of the format does not define');
  let at = 2;
  const read = (): number => {
    const [value, length] = readVarint(h, at);
    at += length;
    return Number(value);
  };
  if ((blockFlags & 0x40) !== 0) read();
  if ((blockFlags & 0x80) !== 0) read();
  const filters = (blockFlags & 0x03) + 1;
  for (let i = 0; i < filters; i++) {
    const id = read();
    const size = read();
    if (id !== lzma2) throw unsupportedFilter(id);
    if (size !== 1) throw corrupt('the LZMA2 filter properties are not one byte');
    const dictionary = dictionarySize(h[at] as number);
    if (dictionary > maxDictionary) {
      throw new UnsupportedError(
        `the xz stream's dictionary is ${formatBytes(dictionary)}, larger than the ${formatBytes(maxDictionary)} the decoder reads (xz -9 uses 64 MiB)`,
      );
    }
    at += size;
    if (at > h.length - 4) throw corrupt('a block header is shorter than its filters');
  }
}

/** The LZMA2 dictionary size its property byte encodes. */
function dictionarySize(bits: number): number {
  if (bits > 40) throw corrupt('an LZMA2 dictionary size above 4 GiB');
  if (bits === 40) return 0xffffffff;
  return (2 | (bits & 1)) * 2 ** (Math.floor(bits / 2) + 11);
}

function unsupportedFilter(id: number): UnsupportedError {
  const name = filterNames[id];
  return new UnsupportedError(
    name === undefined
      ? `the xz stream uses filter ${id}, which xz does not define`
      : `the xz stream uses the ${name} filter (made with xz --${name.split(' ')[0]?.toLowerCase().replace('-', '')}), which chainvisor does not read: only LZMA2, what xz writes by default (cosmovisor's go-getter reads only that too)`,
  );
}
