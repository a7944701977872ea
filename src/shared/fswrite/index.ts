/** Files chainvisor writes: whole or absent (atomic.ts), and large streams in few system calls (buffered.ts). */
export { copyFileAtomic, fsyncDir, makeFolders, replaceFile, tempSibling, writeFileAtomic } from './atomic.js';
export { type BufferedWriter, createBufferedWriter } from './buffered.js';
