// Authentication and authorization of the main server, as the kubelet builds them (cmd/kubelet/app/auth.go
// and pkg/kubelet/server/auth.go): x509, then TokenReview bearer tokens (cached), then anonymous; the
// authorizer is AlwaysAllow or a SubjectAccessReview webhook; request paths map to `nodes/<subresource>`.
import type { IncomingMessage } from 'node:http';
import {
  anonymousAuthenticator,
  authenticatedGroupAdder,
  bearerTokenAuthenticator,
  cachedTokenAuthenticator,
  unionAuthenticator,
  webhookTokenAuthenticator,
  x509Authenticator,
  type Attributes,
  type Authorizer,
  type RequestAuthenticator,
  type TokenAuthenticator,
  type UserInfo,
} from '@cl/auth';
import { parseDuration } from '@cl/flags';
import type { CletConfiguration } from '../config/types';
import type { ClientConfig as ApiServerConnection } from '@cl/kube-client';
import { sarAuthorizer } from './sar-authorizer';

export interface ServerAuth {
  /** null: nobody accepted the request (401). Rejects: a credential was presented and is invalid (401). */
  authenticator: RequestAuthenticator;
  authorizer: Authorizer;
}

/** BuildAuth: throws upstream's messages for modes that cannot work. */
export function buildAuth(kc: CletConfiguration, clientCA: Buffer | null, api: ApiServerConnection | null): ServerAuth {
  const authenticators: RequestAuthenticator[] = [];
  if (clientCA) authenticators.push(x509Authenticator({ clientCA }));
  if (kc.authentication.webhook.enabled) {
    if (!api) throw new Error('no client provided, cannot use webhook authentication');
    const ttl = parseDuration(kc.authentication.webhook.cacheTTL);
    const reviews = (cert: Buffer | undefined, key: Buffer | undefined) => webhookTokenAuthenticator({
      url: `${api.server}/apis/authentication.k8s.io/v1/tokenreviews`,
      ca: api.ca,
      cert,
      key,
      bearerToken: api.token,
    });
    // With --rotate-certificates the reviews go out with the node's newest client certificate.
    const rotating = api.rotatingCertificate;
    let made = { pair: rotating?.current(), reviews: reviews(rotating?.current().cert ?? api.cert, rotating?.current().key ?? api.key) };
    const tokens: TokenAuthenticator = rotating
      ? {
          authenticateToken: (token) => {
            if (made.pair !== rotating.current()) made = { pair: rotating.current(), reviews: reviews(rotating.current().cert, rotating.current().key) };
            return made.reviews.authenticateToken(token);
          },
        }
      : made.reviews;
    authenticators.push(bearerTokenAuthenticator(ttl > 0 ? cachedTokenAuthenticator(tokens, { successTtlMs: ttl, failureTtlMs: ttl }) : tokens));
  }
  let authenticator: RequestAuthenticator = authenticatedGroupAdder(unionAuthenticator(authenticators));
  if (authenticators.length === 0) authenticator = { authenticate: async () => null };
  if (kc.authentication.anonymous.enabled) {
    // A bad certificate or token is an error, never a reason to fall back to anonymous.
    authenticator = unionAuthenticator([authenticator, anonymousAuthenticator()], { failOnError: true });
  }

  let authorizer: Authorizer;
  switch (kc.authorization.mode) {
    case 'AlwaysAllow':
      authorizer = { authorize: async () => ({ decision: 'Allow', reason: '' }) };
      break;
    case 'Webhook':
      if (!api) throw new Error('no client provided, cannot use webhook authorization');
      authorizer = sarAuthorizer({
        connection: api,
        authorizedTtlMs: parseDuration(kc.authorization.webhook.cacheAuthorizedTTL),
        unauthorizedTtlMs: parseDuration(kc.authorization.webhook.cacheUnauthorizedTTL),
      });
      break;
    case '':
      throw new Error('no authorization mode specified');
    default:
      throw new Error(`unknown authorization mode ${kc.authorization.mode}`);
  }
  return { authenticator, authorizer };
}

const VERBS: Record<string, string> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

const isSubpath = (path: string, prefix: string) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : prefix + '/');

/** The subresources a path is authorized as, tried in order (the first Allow wins). */
export function nodeSubresources(path: string, fineGrained: boolean): string[] {
  const out: string[] = [];
  if (fineGrained) {
    if (isSubpath(path, '/pods') || isSubpath(path, '/runningpods')) out.push('pods');
    else if (isSubpath(path, '/healthz')) out.push('healthz');
    else if (isSubpath(path, '/configz')) out.push('configz');
  }
  if (isSubpath(path, '/stats')) out.push('stats');
  else if (isSubpath(path, '/metrics')) out.push('metrics');
  else if (isSubpath(path, '/logs')) out.push('log');
  else if (isSubpath(path, '/checkpoint')) out.push('checkpoint');
  else out.push('proxy');
  return out;
}

export function nodeAttributes(user: UserInfo, req: IncomingMessage, path: string, nodeName: string, subresource: string): Attributes {
  return {
    user,
    verb: VERBS[req.method ?? ''] ?? '',
    isResourceRequest: true,
    path,
    namespace: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'nodes',
    subresource,
    name: nodeName,
  };
}
