// Service accounts in the API server: the token issuer (flags, keys), TokenRequest, the token authenticator and
// issuer discovery.
import { cachedTokenAuthenticator, type TokenAuthenticator } from '@cl/auth';
import type { ResourceStore } from '@cl/registry';
import type { NodeRequestAuthorizer } from '../authz/node-restriction';
import type { Route } from '../routes';
import { serviceAccountTokenAuthenticator } from './authenticator';
import type { ServiceAccountOptions } from './flags';
import { TokenIssuer } from './issuer';
import { loadIssuerKeys } from './keys';
import { storeLookup } from './lookup';
import { openIdRoutes } from './oidc';
import { tokenRequestRoute } from './token-request';

export { addServiceAccountFlags, serviceAccountOptions, validateServiceAccountOptions, DEFAULT_ISSUER, type ServiceAccountOptions } from './flags';
export { TokenIssuer } from './issuer';

export interface ServiceAccounts {
  issuer: TokenIssuer;
  authenticator: TokenAuthenticator;
  /** `authorize` answers NodeRestriction's question about audiences granted to nodes. */
  routes(authorize: NodeRequestAuthorizer): Promise<Route[]>;
}

/** Loads the keys (errors collected into `errors`); null when they could not be loaded. */
export function buildServiceAccounts(opts: ServiceAccountOptions, certDir: string, stores: () => readonly ResourceStore[] | undefined, errors: string[],
  admission: { nodeRestriction: boolean }): ServiceAccounts | null {
  const keys = loadIssuerKeys({ signingKeyFile: opts.signingKeyFile, keyFiles: opts.keyFiles, certDir }, errors);
  if (!keys) return null;
  const issuer = new TokenIssuer(opts, keys);
  const lookup = storeLookup(stores);
  return {
    issuer,
    // Behind upstream's 10 s success cache, as the other token authenticators.
    authenticator: cachedTokenAuthenticator(serviceAccountTokenAuthenticator(issuer, lookup), { successTtlMs: 10_000, failureTtlMs: 0 }),
    routes: async (authorize) => [tokenRequestRoute(issuer, lookup, { ...admission, authorize }), ...(await openIdRoutes(issuer))],
  };
}
