/**
 * A small zip writer (deflate, Unix modes kept in the external attributes) for the versions' `.zip`
 * archives. No zip-writing dependency is installed and the format needed here is tiny: local
 * headers, data, central directory, end record; deflate and the CRC-32 come from node:zlib. Times
 * are fixed so archives are reproducible.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** Path inside the archive, `/`-separated; directories end with `/`. */
  name: string;
  data?: Buffer;
  /** Unix permission bits, e.g. 0o755. */
  mode: number;
}

/** 1980-01-01 00:00, the DOS epoch. */
const dosDate = (0 << 9) | (1 << 5) | 1;
const dosTime = 0;
const utf8Flag = 0x0800;

/**
 * The fields a local header (at 4) and a central directory entry (at 6) share, in the same order:
 * version needed, flags, method, time, date, CRC-32, compressed size, size, name length.
 */
function writeEntryFields(header: Buffer, at: number, f: { method: number; crc: number; compressed: number; size: number; nameLength: number }): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(utf8Flag, at + 2);
  header.writeUInt16LE(f.method, at + 4);
  header.writeUInt16LE(dosTime, at + 6);
  header.writeUInt16LE(dosDate, at + 8);
  header.writeUInt32LE(f.crc, at + 10);
  header.writeUInt32LE(f.compressed, at + 14);
  header.writeUInt32LE(f.size, at + 18);
  header.writeUInt16LE(f.nameLength, at + 22);
}

export function createZip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const isDir = entry.name.endsWith('/');
    const name = Buffer.from(entry.name, 'utf8');
    const raw = isDir ? Buffer.alloc(0) : (entry.data ?? Buffer.alloc(0));
    const deflated = deflateRawSync(raw);
    const useDeflate = !isDir && deflated.length < raw.length;
    const body = useDeflate ? deflated : raw;
    const crc = crc32(raw);
    const method = useDeflate ? 8 : 0;

    const fields = { method, crc, compressed: body.length, size: raw.length, nameLength: name.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntryFields(local, 4, fields);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, zip 2.0
    writeEntryFields(central, 6, fields);
    // extra length, comment length, disk number, internal attributes: 0
    const fileType = isDir ? 0o040000 : 0o100000;
    central.writeUInt32LE((((fileType | entry.mode) << 16) | (isDir ? 0x10 : 0)) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
