/**
 * Why the node stopped producing blocks. The pre-block hook throws one of these where a real node
 * panics; the node then exits non-zero or, with `--halt-mode stay`, stays up without producing blocks.
 */
export type HaltKind =
  /** A plan is due and this binary has no handler for it: upgrade-info.json was written. */
  | 'upgrade-needed'
  /** This binary has the handler of a plan that is not due yet. */
  | 'binary-early'
  /** The last applied upgrade has no handler in this binary (a downgrade). */
  | 'wrong-app-version'
  /** The handler ran and failed; nothing of the block was committed. */
  | 'upgrade-failed'
  /** `--halt-height` was reached: an orderly stop, not a failure. */
  | 'halt-height';

export class ChainHalt extends Error {
  readonly kind: HaltKind;
  /** The height of the block that was not (or, for halt-height, was last) committed. */
  readonly height: number;

  constructor(kind: HaltKind, height: number, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChainHalt';
    this.kind = kind;
    this.height = height;
  }
}
