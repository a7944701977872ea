/** The upgrade module's registered errors (codespace `upgrade`). */
import { ChainError, GrpcCode, invalidRequest } from '../util/errors.js';

export const codespace = 'upgrade';

export function moduleVersionNotFound(module: string): ChainError {
  return new ChainError(codespace, 2, `module ${module}: module version not found`, GrpcCode.notFound);
}

export function planNotFound(): ChainError {
  return new ChainError(codespace, 3, 'upgrade plan not found', GrpcCode.notFound);
}

export function invalidSigner(expected: string, got: string): ChainError {
  return new ChainError(
    codespace,
    6,
    `expected ${expected} got ${got}: expected authority account as only signer for proposal message`,
  );
}

export { invalidRequest };
