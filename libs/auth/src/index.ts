export type {
  UserInfo,
  AuthResponse,
  RequestAuthenticator,
  TokenAuthenticator,
  MaybeSyncTokenAuthenticator,
  MaybePromise,
  Authorizer,
  Attributes,
  Decision,
  DecisionKind,
  SelectorRequirement,
} from './types';
export { userInfo } from './types';
export { asMaybeSync, isPromiseLike, promiseOf, thenMaybe } from './maybe-promise';
export { AggregateError, aggregate } from './errors';
export { unionAuthenticator, unionTokenAuthenticator, type UnionOptions } from './union';
export {
  authenticatedGroupAdder,
  withAuthenticatedGroup,
  ANONYMOUS_USER,
  ALL_AUTHENTICATED,
  ALL_UNAUTHENTICATED,
} from './group-adder';
export { anonymousAuthenticator, requestPath, type AnonymousCondition, type AnonymousOptions } from './anonymous';
export { bearerTokenAuthenticator, bearerTokenFromHeader, websocketProtocolAuthenticator } from './bearer-token';
export { cachedTokenAuthenticator, type CachedTokenAuthenticator, type TokenCacheOptions } from './token-cache';
export { x509Authenticator, parsePemBundle, verifyClientChain, CREDENTIAL_ID_KEY, type X509Options } from './x509';
export { webhookTokenAuthenticator, type WebhookTokenOptions } from './webhook-token';
export { requestInfo, requestAttributes, type RequestInfo } from './request-info';
export { parseSelector } from './selectors';
export {
  counter,
  gauge,
  histogram,
  fastHistogram,
  fastCounter,
  fastGauge,
  FastHistogram,
  FastValueMetric,
  exponentialBuckets,
  type HistogramChild,
  type ValueChild,
} from './metrics';
