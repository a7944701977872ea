/** chainvisor's errors: the one base class and its kinds (chainvisor-error.ts), every code with its exit code and hint (catalogue.ts). */
export { errorCatalogue, type ErrorCode, errorCodes, type ErrorSpec, errorSpec } from './catalogue.js';
export {
  ChainvisorError,
  type ChainvisorErrorOptions,
  ConfigError,
  type ConfigProblem,
  isErrno,
  isFsError,
  UpgradeError,
  UsageError,
} from './chainvisor-error.js';
export { ExitCode, type ExitCodeValue } from './exit-codes.js';
export { layoutFsError } from './fs-error.js';
export { renderErrorsDoc } from './render.js';
