// The Webhook authorization mode: asks the API server with a SubjectAccessReview (authorization.k8s.io/v1)
// and caches allowed answers for cacheAuthorizedTTL and denied ones for cacheUnauthorizedTTL, as the
// kubelet's delegating authorizer does. Errors are never cached.
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { Attributes, Authorizer, Decision } from '@cl/auth';
import type { ClientConfig as ApiServerConnection } from '@cl/kube-client';

export interface SarAuthorizerOptions {
  connection: ApiServerConnection;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  timeoutMs?: number;
  now?: () => number;
}

interface SarStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

function reviewBody(a: Attributes): object {
  const spec: Record<string, unknown> = {
    user: a.user.username,
    groups: a.user.groups,
    ...(Object.keys(a.user.extra).length > 0 ? { extra: a.user.extra } : {}),
    ...(a.user.uid ? { uid: a.user.uid } : {}),
  };
  if (a.isResourceRequest) {
    spec.resourceAttributes = {
      ...(a.namespace ? { namespace: a.namespace } : {}),
      verb: a.verb,
      ...(a.apiGroup ? { group: a.apiGroup } : {}),
      version: a.apiVersion,
      resource: a.resource,
      ...(a.subresource ? { subresource: a.subresource } : {}),
      ...(a.name ? { name: a.name } : {}),
    };
  } else {
    spec.nonResourceAttributes = { path: a.path, verb: a.verb };
  }
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec,
    status: { allowed: false },
  };
}

function post(opts: SarAuthorizerOptions, body: string): Promise<{ status: number; body: string }> {
  const c = opts.connection;
  const url = new URL(c.server + '/apis/authorization.k8s.io/v1/subjectaccessreviews');
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'Content-Length': Buffer.byteLength(body),
          ...(c.token ? { Authorization: `Bearer ${c.token}` } : {}),
        },
        ca: c.ca,
        // With --rotate-certificates, the node's newest client certificate.
        cert: c.rotatingCertificate?.current().cert ?? c.cert,
        key: c.rotatingCertificate?.current().key ?? c.key,
        rejectUnauthorized: !c.insecureSkipTLSVerify,
        timeout: opts.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (d: Buffer) => {
          size += d.length;
          if (size > 3 * 1024 * 1024) req.destroy(new Error('subject access review response too large'));
          else chunks.push(d);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('subject access review request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

export interface SarAuthorizer extends Authorizer {
  /** Webhook calls made, for tests of the cache. */
  readonly calls: number;
}

export function sarAuthorizer(opts: SarAuthorizerOptions): SarAuthorizer {
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { decision: Decision; expires: number }>();
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    async authorize(attrs: Attributes): Promise<Decision> {
      const review = reviewBody(attrs);
      const key = JSON.stringify((review as { spec: unknown }).spec);
      const hit = cache.get(key);
      if (hit && hit.expires > now()) return hit.decision;
      calls++;
      const res = await post(opts, JSON.stringify(review));
      if (res.status < 200 || res.status > 299) {
        throw new Error(`subject access review failed with status code ${res.status}`);
      }
      let status: SarStatus;
      try {
        status = ((JSON.parse(res.body) as { status?: SarStatus }).status ?? {}) as SarStatus;
      } catch (e) {
        throw new Error(`unable to decode subject access review response: ${(e as Error).message}`);
      }
      const reason = status.reason ?? '';
      const decision: Decision = status.allowed
        ? { decision: 'Allow', reason }
        : status.denied
          ? { decision: 'Deny', reason }
          : { decision: 'NoOpinion', reason };
      const ttl = decision.decision === 'Allow' ? opts.authorizedTtlMs : opts.unauthorizedTtlMs;
      if (ttl > 0) {
        if (cache.size >= 10_000) cache.delete(cache.keys().next().value as string);
        cache.set(key, { decision, expires: now() + ttl });
      }
      return decision;
    },
  };
}
