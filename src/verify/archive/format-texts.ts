/**
 * What chainvisor tells people about the formats it reads, derived from the formats table
 * (formats.ts) so that a new row is named everywhere the day it is added: `check-plan --help`, the
 * hint of CHAINVISOR_UNKNOWN_FORMAT, and the table of docs/download.md (scripts/regen-docs.mjs).
 * tar comes first, then the compressions' tars, then the other archives: the order people name them.
 */
import { archiveRows, compressionRows, formats } from './formats.js';

/** `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1) as string}`;
}

const tarRows = archiveRows.filter((row) => row.name === 'tar');
const otherArchives = archiveRows.filter((row) => row.name !== 'tar');

/** Archives by name: tar, tar.gz, …, zip. */
const archiveNames = [...tarRows.map((row) => row.name), ...compressionRows.map((row) => row.tar.name), ...otherArchives.map((row) => row.name)];

/** The lines of `check-plan --help` that list the formats. */
export const formatsHelp = [
  `Formats, recognised from the bytes (never the name): ${archiveNames.join(', ')},`,
  `and a plain executable or one compressed with ${orList(compressionRows.map((row) => row.name))}.`,
].join('\n');

const dotted = (extensions: readonly string[]): string => extensions.map((extension) => `.${extension}`).join('/');

/** CHAINVISOR_UNKNOWN_FORMAT's hint, given where it is thrown (the catalogue's is generic: shared/ knows no formats). */
export const unknownFormatHint = [
  'the Info must name a plain executable (ELF, Mach-O, PE or a #! script), ',
  `a ${orList(compressionRows.map((row) => `${row.name}-`))}compressed one, `,
  `or a ${orList([...tarRows, ...compressionRows.map((row) => row.tar), ...otherArchives].map((row) => dotted(row.extensions)))} `,
  "holding bin/<DAEMON_NAME> or <DAEMON_NAME>; nothing was installed; for an Info already on chain, get the binary from the chain's release and install it with 'chainvisor add-upgrade <name> <path>'",
].join('');

/** docs/download.md's table of formats begins so (scripts/regen-docs.mjs finds it by "| format |"). */
const formatsTableHeader = "| format | its first bytes | go-getter's names |";

/** docs/download.md's table of formats, one line per row, in the order detection tries them. */
export function renderFormatsTable(): string {
  const code = (items: readonly string[]): string => items.map((item) => `\`${item}\``).join(', ');
  const lines = [formatsTableHeader, '| --- | --- | --- |'];
  for (const row of formats) {
    const { at, hex, note }: { at: number; hex: string; note?: string } = row.signature;
    const bytes = `\`${hex}\`${at === 0 ? '' : ` at byte ${at}`}${note === undefined ? '' : ` ${note}`}`;
    if (row.kind === 'compression') {
      const names = `\`${row.tar.name}\` (a tar inside) or \`${row.name}\` (an executable)`;
      lines.push(`| ${names} | ${bytes} | ${code([...row.tar.extensions, ...row.extensions].map((e) => `.${e}`))} |`);
    } else {
      lines.push(`| \`${row.name}\` | ${bytes} | ${code(row.extensions.map((e) => `.${e}`))} |`);
    }
  }
  return lines.join('\n');
}
