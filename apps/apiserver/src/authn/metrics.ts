// The request-level authentication metrics of k8s.io/apiserver pkg/endpoints/filters/metrics.go, recorded
// around the whole chain: attempts and latency by result, and requests per (compressed) username.
import type { IncomingMessage } from 'node:http';
import { exponentialBuckets, fastCounter, fastHistogram, isPromiseLike, type AuthResponse, type MaybePromise, type RequestAuthenticator } from '@cl/auth';

type Result = 'success' | 'failure' | 'error';

const attempts = () =>
  fastCounter({ name: 'authentication_attempts', help: '[ALPHA] Counter of authenticated attempts.', labelNames: ['result'] as const });
const duration = () =>
  fastHistogram({
    name: 'authentication_duration_seconds',
    help: '[ALPHA] Authentication duration in seconds broken out by result.',
    labelNames: ['result'] as const,
    buckets: exponentialBuckets(0.001, 2, 15),
  });
const userRequests = () =>
  fastCounter({ name: 'authenticated_user_requests', help: '[ALPHA] Counter of authenticated requests broken out by username.', labelNames: ['username'] as const });

/** upstream compressUsername: a bounded label set. */
export function compressUsername(name: string): string {
  switch (name) {
    case 'admin':
    case 'client':
    case 'kube_proxy':
    case 'kubelet':
    case 'system:serviceaccount:kube-system:default':
      return name;
    default:
      return name.includes('@') ? 'email_id' : 'other';
  }
}

export function instrumentAuthenticator(inner: RequestAuthenticator): RequestAuthenticator {
  const results: Record<Result, { count: { inc(): void }; latency: { observe(v: number): void } }> = {
    success: { count: attempts().child({ result: 'success' }), latency: duration().child({ result: 'success' }) },
    failure: { count: attempts().child({ result: 'failure' }), latency: duration().child({ result: 'failure' }) },
    error: { count: attempts().child({ result: 'error' }), latency: duration().child({ result: 'error' }) },
  };
  const users = new Map<string, { inc(): void }>();
  const record = (result: Result, started: number) => {
    results[result].count.inc();
    results[result].latency.observe((performance.now() - started) / 1000);
  };
  const succeeded = (res: AuthResponse | null, started: number) => {
    if (!res) {
      record('failure', started);
      return res;
    }
    const label = compressUsername(res.user.username);
    let c = users.get(label);
    if (!c) users.set(label, (c = userRequests().child({ username: label })));
    c.inc();
    record('success', started);
    return res;
  };
  return {
    // Synchronous when the chain is (anonymous, no credential): the metrics then cost no promise.
    authenticate(req: IncomingMessage): MaybePromise<AuthResponse | null> {
      const started = performance.now();
      let res: MaybePromise<AuthResponse | null>;
      try {
        res = inner.authenticate(req);
      } catch (e) {
        record('error', started);
        throw e;
      }
      if (!isPromiseLike(res)) return succeeded(res, started);
      return res.then(
        (r) => succeeded(r, started),
        (e: unknown) => {
          record('error', started);
          throw e;
        },
      );
    },
  };
}
