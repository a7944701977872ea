/** A decoder's finding about the stream (cut short, corrupt), already worded for the operator. */
export class StreamError extends Error {}

/** A stream made with an option chainvisor does not read (an xz filter other than LZMA2): not corrupt, but refused. */
export class UnsupportedError extends StreamError {}

/** The input ended before the stream's end marker. */
export function truncated(detail = 'the stream ends before its end marker'): StreamError {
  return new StreamError(`${detail}: the file is truncated`);
}

/**
 * This build's decoder cannot be used (a package upgraded under chainvisor moved what it drives): no
 * fault of the stream, and every stream of that compression fails the same way.
 */
export class DecoderUnavailable extends Error {}
