export { commands } from './registry.js';
