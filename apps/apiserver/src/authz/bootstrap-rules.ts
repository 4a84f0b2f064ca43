// The grants kube-apiserver's bootstrap RBAC policy gives everyone, kept in front of the configured chain
// because this server has no RBAC: `system:public-info-viewer` (anyone may GET the health and version
// endpoints), `system:discovery` (an authenticated user may read the discovery documents) and
// `system:basic-user` (an authenticated user may ask what it may do, which `kubectl auth can-i` needs).
// `system:masters` is allowed everything, as upstream's privileged-group authorizer.
import type { Attributes } from '@cl/auth';
import type { ChainAuthorizer } from '@cl/webhook-authz';

const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);
const SELF_REVIEWS = new Set(['selfsubjectaccessreviews', 'selfsubjectrulesreviews']);

function isPublicInfo(a: Attributes): boolean {
  return !a.isResourceRequest && a.verb === 'get' && PUBLIC_PATHS.has(a.path);
}

const DISCOVERY_PATHS = new Set(['/api', '/apis', '/openapi']);
const DISCOVERY_PREFIXES = ['/api/', '/apis/', '/openapi/'];

function isDiscovery(a: Attributes): boolean {
  return (
    !a.isResourceRequest &&
    a.verb === 'get' &&
    (DISCOVERY_PATHS.has(a.path) || DISCOVERY_PREFIXES.some((p) => a.path.startsWith(p))) &&
    a.user.groups.includes('system:authenticated')
  );
}

function isSelfReview(a: Attributes): boolean {
  return (
    a.isResourceRequest &&
    a.verb === 'create' &&
    ((a.apiGroup === 'authorization.k8s.io' && SELF_REVIEWS.has(a.resource)) || (a.apiGroup === 'authentication.k8s.io' && a.resource === 'selfsubjectreviews')) &&
    a.subresource === '' &&
    a.user.groups.includes('system:authenticated')
  );
}

/** One authorizer for the three rules: it runs on every request, in front of the configured chain. */
export const bootstrapPolicyAuthorizer: ChainAuthorizer = {
  authorize(a) {
    if (a.user.groups.includes('system:masters')) return { decision: 'Allow', reason: '' };
    if (isPublicInfo(a)) return { decision: 'Allow', reason: '' };
    if (isDiscovery(a)) return { decision: 'Allow', reason: '' };
    if (isSelfReview(a)) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: '' };
  },
};
