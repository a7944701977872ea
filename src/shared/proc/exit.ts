/** How a process ended, and the words for it: in the node's log lines and its events' text alike. */
export interface ExitStatus {
  code: number | undefined;
  signal: NodeJS.Signals | undefined;
}

export function describeExit(status: ExitStatus): string {
  return status.signal === undefined ? `exit code ${status.code}` : `signal ${status.signal}`;
}
