import { requestInfo } from '@cl/auth';
import { InFlightLimiter, isLongRunning, requestKind } from './max-in-flight';

const user = (groups: string[] = ['system:authenticated']) => ({ username: 'u', uid: '', groups, extra: {} });
const info = (method: string, path: string) => requestInfo(method, path);

test.each([
  ['GET', '/api/v1/namespaces/ns/pods', false, 'readOnly'],
  ['GET', '/api/v1/namespaces/ns/pods?watch=true', false, 'readOnly'],
  ['POST', '/api/v1/namespaces/ns/pods', false, 'mutating'],
  ['GET', '/api/v1/namespaces/ns/pods/p/log', true, 'readOnly'],
  ['POST', '/api/v1/namespaces/ns/pods/p/exec', true, 'mutating'],
  ['GET', '/api/v1/nodes/n/proxy/pods', true, 'readOnly'],
  ['GET', '/healthz', false, 'readOnly'],
  ['PUT', '/api/v1/namespaces/ns/configmaps/c', false, 'mutating'],
])('%s %s: long-running %s, %s', (method, path, long, kind) => {
  const i = info(method, path.split('?')[0]);
  if (path.includes('watch=true')) i.verb = 'watch';
  expect(isLongRunning(i)).toBe(path.includes('watch=true') ? true : long);
  expect(requestKind(i)).toBe(kind);
});

describe('without priority and fairness: a limit per kind', () => {
  const limiter = () => new InFlightLimiter({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1, enablePriorityAndFairness: false });

  test('read-only requests up to their limit, then 429; a release frees a seat', () => {
    const l = limiter();
    const a = l.admit(info('GET', '/api/v1/pods'), user());
    const b = l.admit(info('GET', '/api/v1/pods'), user());
    expect([typeof a, typeof b]).toEqual(['function', 'function']);
    expect(l.admit(info('GET', '/api/v1/pods'), user())).toBeNull();
    // The mutating pool is separate.
    expect(typeof l.admit(info('POST', '/api/v1/namespaces/ns/pods'), user())).toBe('function');
    expect(l.admit(info('POST', '/api/v1/namespaces/ns/pods'), user())).toBeNull();
    (a as () => void)();
    (a as () => void)();
    expect(l.inFlight()).toEqual({ readOnly: 1, mutating: 1 });
    expect(typeof l.admit(info('GET', '/api/v1/pods'), user())).toBe('function');
  });

  test('system:masters is never turned away; long-running requests are not counted', () => {
    const l = limiter();
    l.admit(info('GET', '/api/v1/pods'), user());
    l.admit(info('GET', '/api/v1/pods'), user());
    expect(l.admit(info('GET', '/api/v1/pods'), user(['system:masters']))).toBe('exempt');
    expect(l.admit(info('GET', '/api/v1/namespaces/ns/pods/p/log'), user())).toBe('exempt');
  });

  test('a limit of 0 means none', () => {
    const l = new InFlightLimiter({ maxRequestsInflight: 0, maxMutatingRequestsInflight: 0, enablePriorityAndFairness: false });
    for (let i = 0; i < 5; i++) expect(l.admit(info('GET', '/api/v1/pods'), user())).toBe('exempt');
  });
});

describe('with priority and fairness: one pool of both limits, health checks exempt', () => {
  test('any kind up to the sum, then 429', () => {
    const l = new InFlightLimiter({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1, enablePriorityAndFairness: true });
    expect(typeof l.admit(info('POST', '/api/v1/namespaces/ns/pods'), user())).toBe('function');
    expect(typeof l.admit(info('POST', '/api/v1/namespaces/ns/pods'), user())).toBe('function');
    expect(l.admit(info('GET', '/api/v1/pods'), user())).toBeNull();
    expect(l.admit(info('GET', '/readyz'), user(['system:unauthenticated']))).toBe('exempt');
  });
});
