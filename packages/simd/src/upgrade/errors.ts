/** The upgrade module's registered errors (codespace `upgrade`). */
import { ChainError, GrpcCode, invalidRequest, wrappedError } from '../util/errors.js';

export const codespace = 'upgrade';

/**
 * ModuleVersions for a module the version map lacks: ErrNoModuleVersionFound (registered without a gRPC
 * code, so codes.Unknown) wrapped as the v0.50 keeper does (x/upgrade/keeper/grpc_query.go).
 */
export function moduleVersionNotFound(module: string): ChainError {
  return wrappedError(codespace, 2, 'module version not found', `x/upgrade: QueryModuleVersions module ${module} not found`);
}

export function planNotFound(): ChainError {
  return new ChainError(codespace, 3, 'upgrade plan not found', GrpcCode.notFound);
}

export function invalidSigner(expected: string, got: string): ChainError {
  return new ChainError(codespace, 6, `expected ${expected} got ${got}: expected authority account as only signer for proposal message`);
}

export { invalidRequest };
