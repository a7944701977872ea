/** Every command, in the order `chainvisor help` lists them. */
import type { Command } from '../command.js';
import { configCommand } from './config.js';

export const commands: Command[] = [configCommand];
