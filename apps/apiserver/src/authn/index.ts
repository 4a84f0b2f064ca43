// Authentication for the API server: flags, the request chain, the authentication.k8s.io/v1 review APIs and
// the discovery documents kubectl needs to find them.
import type { GroupVersion } from '../post-start-hooks';
import type { Route } from '../routes';
import type { Authentication } from './build';
import { selfSubjectReviewRoute, tokenReviewRoute } from './reviews';

export { addAuthenticationFlags } from './flags';
export { buildAuthentication, AuthenticationSetupError, type Authentication, type AuthenticationOptions } from './build';
export { selfSubjectReviewRoute, tokenReviewRoute, SELF_SUBJECT_REVIEWS_PATH, TOKEN_REVIEWS_PATH } from './reviews';
export { newLoopbackCredential, loopbackAuthenticator, APISERVER_USER, type LoopbackCredential } from './loopback';
export { discoveryRoutes, authenticationGroup, type DiscoveryGroup, type DiscoveryResource } from './discovery';

/** The review endpoints of authentication.k8s.io/v1. */
export function authenticationRoutes(authn: Authentication, log: (m: string) => void): Route[] {
  return [selfSubjectReviewRoute(), tokenReviewRoute(authn.tokenAuthenticator, log)];
}

export const authenticationGroupVersions: GroupVersion[] = [{ group: 'authentication.k8s.io', version: 'v1' }];
