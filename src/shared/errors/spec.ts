/** The shape of an entry of the error catalogue. */
import type { ExitCodeValue } from './exit-codes.js';

export interface ErrorSpec {
  /** The exit code of the `chainvisor` command when this error ends it. */
  exit: ExitCodeValue;
  /** Other exit codes some throw sites use, and why (the same fault, but whose fault depends on where it is met). */
  alsoExit?: { codes: readonly ExitCodeValue[]; why: string };
  /** When it happens, one line. */
  when: string;
  /** What the operator does: the hint when the throw site gives none. */
  hint: string;
}
