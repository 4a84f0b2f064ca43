// The SubjectAccessReview authorizer against a plain HTTP stand-in for the API server (counting reviews),
// with a fake clock for the two cache TTLs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Attributes } from '@cl/auth';
import { sarAuthorizer } from './sar-authorizer';

let server: Server;
let url: string;
let reviews: Array<Record<string, unknown>> = [];
let answer: (spec: Record<string, unknown>) => { code: number; status?: object } = () => ({ code: 200, status: { allowed: true } });

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const review = JSON.parse(body) as { spec: Record<string, unknown> };
      reviews.push({ url: req.url, ...review });
      const a = answer(review.spec);
      res.statusCode = a.code;
      res.end(JSON.stringify({ ...review, status: a.status }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => {
  reviews = [];
});

const attrs = (username: string, subresource = 'proxy'): Attributes => ({
  user: { username, uid: 'u-1', groups: ['g', 'system:authenticated'], extra: { scopes: ['a'] } },
  verb: 'get',
  isResourceRequest: true,
  path: '/pods',
  namespace: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'nodes',
  subresource,
  name: 'node1',
});

test('sends a v1 SubjectAccessReview for nodes/<subresource> and maps the answer', async () => {
  answer = (spec) =>
    spec.user === 'alice' ? { code: 200, status: { allowed: true, reason: 'ok' } } : spec.user === 'eve' ? { code: 200, status: { allowed: false, denied: true, reason: 'no' } } : { code: 200, status: { allowed: false } };
  const a = sarAuthorizer({ connection: { server: url, insecureSkipTLSVerify: false }, authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
  expect(await a.authorize(attrs('alice'))).toEqual({ decision: 'Allow', reason: 'ok' });
  expect(await a.authorize(attrs('eve'))).toEqual({ decision: 'Deny', reason: 'no' });
  expect(await a.authorize(attrs('bob'))).toEqual({ decision: 'NoOpinion', reason: '' });
  expect(reviews[0]).toEqual({
    url: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec: {
      user: 'alice',
      uid: 'u-1',
      groups: ['g', 'system:authenticated'],
      extra: { scopes: ['a'] },
      resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'proxy', name: 'node1' },
    },
    status: { allowed: false },
  });
});

test('allowed answers are cached for the authorized TTL, denied ones for the unauthorized TTL, errors never', async () => {
  let now = 0;
  answer = (spec) => (spec.user === 'alice' ? { code: 200, status: { allowed: true } } : spec.user === 'err' ? { code: 500 } : { code: 200, status: { allowed: false } });
  const a = sarAuthorizer({ connection: { server: url, insecureSkipTLSVerify: false }, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, now: () => now });
  await a.authorize(attrs('alice'));
  await a.authorize(attrs('carol'));
  now = 29_000;
  await a.authorize(attrs('alice'));
  await a.authorize(attrs('carol'));
  expect(a.calls).toBe(2);
  now = 31_000;
  await a.authorize(attrs('alice'));
  await a.authorize(attrs('carol'));
  expect(a.calls).toBe(3);
  now = 301_000;
  await a.authorize(attrs('alice'));
  expect(a.calls).toBe(4);
  // A different subresource is a different question.
  await a.authorize(attrs('alice', 'metrics'));
  expect(a.calls).toBe(5);
  await expect(a.authorize(attrs('err'))).rejects.toThrow('subject access review failed with status code 500');
  await expect(a.authorize(attrs('err'))).rejects.toThrow();
  expect(a.calls).toBe(7);
});
