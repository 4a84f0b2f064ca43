export { JwtAuthenticator, defaultLogger, type JwtAuthenticatorOptions, type Logger } from './jwt-authenticator';
export { JwtAuthenticators } from './jwt-authenticators';
export { ReloadingJwtAuthenticator, type ConfigReloaderOptions } from './config-reloader';
export {
  createJwtVerifier,
  jwtMiddleware,
  TokenRejectedError,
  type JwtVerifier,
  type JwtVerifierOptions,
  type MiddlewareOptions,
  type RequestWithUser,
} from './verify-api';
export { ALL_VALID_SIGNING_ALGS } from './verifier';
export { untrustedIssuer } from './jws';
export { celValueFromJson } from './cel-values';
export { sha256Label } from './metrics';
export { CREDENTIAL_ID_KEY } from './claim-mappings';
export type { CelCompiler } from './cel';
