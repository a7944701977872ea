/** How a benchmark runs a chainvisor build given by path: its bin/chainvisor.js through this Node, or a release executable itself. */
export function commandOf(bin: string, args: string[]): [string, string[]] {
  return bin.endsWith('.js') ? [process.execPath, [bin, ...args]] : [bin, args];
}
