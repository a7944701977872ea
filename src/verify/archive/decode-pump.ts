/**
 * The loop of a decoder that is a Duplex (decode-bzip2.ts, decode-xz.ts): its work runs one run at a
 * time, a call during a run (a push that made the reader ask for more) makes it go round once more
 * while the reader still wants bytes, and an error of the work destroys the stream.
 */
export interface DecodePumpOptions {
  /** Decodes what it can now; called again while `again` was asked and the reader is not full. */
  work(): void;
  /** The reader has enough (its last push returned false). */
  readerFull(): boolean;
  /** What the work threw: the stream is destroyed with it. */
  fail(error: unknown): void;
}

/** Returns the pump: call it on every write, final and read. */
export function createDecodePump(options: DecodePumpOptions): () => void {
  let pumping = false;
  let again = false;
  return () => {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        options.work();
      } while (again && !options.readerFull());
    } catch (error) {
      options.fail(error);
    } finally {
      pumping = false;
    }
  };
}
