/** Writing large streams to files with few system calls (see buffered-writer.ts). */
export { type BufferedWriter, bufferSize, createBufferedWriter } from './buffered-writer.js';
