/** The node as chainvisor's child: its process, and the one launch point of every start. */
export { type LaunchContext, type Launched, launchNode, type LaunchOptions } from './launch.js';
export { describeExit, exitCodeOf, type ExitStatus, nodeEnvironment, type NodeProcess, startNode } from './node-process.js';
