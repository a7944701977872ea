/**
 * One regular file copied in full, keeping its mode and times. Small files go through `copyFile`
 * (the kernel copies them: copy_file_range, no bytes through JavaScript); large ones are streamed in
 * 1 MiB chunks so the progress of a backup moves while a big table or snapshot is copied.
 */
import { constants } from 'node:fs';
import fs from 'node:fs/promises';

import type { TreeEntry } from './tree.js';

/** Files larger than this are streamed (with progress) rather than copied in one call. */
const streamAbove = 128 * 1024 * 1024;
const chunk = 1024 * 1024;

export async function copyWhole(src: string, dst: string, entry: TreeEntry, onBytes: (n: number) => void): Promise<void> {
  if (entry.size <= streamAbove) {
    // copyFile gives the copy the source's mode itself (libuv fchmods it); only the times are left.
    await fs.copyFile(src, dst, constants.COPYFILE_EXCL);
    await fs.utimes(dst, entry.atime, entry.mtime);
    onBytes(entry.size);
  } else {
    await streamCopy(src, dst, entry.mode, onBytes);
    await keepModeAndTimes(dst, entry);
  }
}

async function streamCopy(src: string, dst: string, mode: number, onBytes: (n: number) => void): Promise<void> {
  const input = await fs.open(src, 'r');
  try {
    const output = await fs.open(dst, 'wx', mode);
    try {
      const buffer = Buffer.allocUnsafe(chunk);
      for (;;) {
        const { bytesRead } = await input.read(buffer, 0, chunk, null);
        if (bytesRead === 0) break;
        let written = 0;
        while (written < bytesRead) written += (await output.write(buffer, written, bytesRead - written)).bytesWritten;
        onBytes(bytesRead);
      }
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/** The file's own permission bits (the umask does not apply to a backup) and its times. */
async function keepModeAndTimes(dst: string, entry: TreeEntry): Promise<void> {
  await fs.chmod(dst, entry.mode);
  await fs.utimes(dst, entry.atime, entry.mtime);
}
