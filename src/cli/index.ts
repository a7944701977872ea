/** The `chainvisor` command (main.ts): the command line read, the command run, errors printed with their hint and exit code. */
export { main, type MainOptions } from './main.js';
