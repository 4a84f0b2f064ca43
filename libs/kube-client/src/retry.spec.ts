// Retries of answers that ask for one (429 or 5xx with Retry-After), against a real local HTTP server that answers
// from a script: what the caller sees and how many requests the server got.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from './api-error';
import { KubeClient, retryAfterSeconds } from './kube-client';

type Answer = [status: number, retryAfter?: string];
let server: Server;
let script: Answer[] = [];
let requests: { method?: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      requests.push({ method: req.method, body });
      const [status, retryAfter] = script.shift() ?? [200];
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (retryAfter !== undefined) headers['Retry-After'] = retryAfter;
      res.writeHead(status, headers);
      res.end(JSON.stringify(status === 200 ? { kind: 'ConfigMap', metadata: { name: 'x' } } : { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: status, reason: status === 429 ? 'TooManyRequests' : 'InternalError', message: 'not now' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => {
  script = [];
  requests = [];
});

const client = (maxRetries?: number) => new KubeClient({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, qps: -1, maxRetries });

test.each<[string, number, string | string[] | undefined, number | undefined]>([
  ['429 with seconds', 429, '1', 1],
  ['503 with zero', 503, '0', 0],
  ['500 with spaces', 500, ' 2 ', 2],
  ['a list of values: the first', 429, ['3', '4'], 3],
  ['no header', 429, undefined, undefined],
  ['an HTTP date is not followed', 503, 'Wed, 21 Oct 2026 07:28:00 GMT', undefined],
  ['409 is final', 409, '1', undefined],
  ['404 is final', 404, '1', undefined],
])('retryAfterSeconds: %s', (_name, status, header, want) => {
  expect(retryAfterSeconds(status, header)).toBe(want);
});

test('a 429 and a 503 with Retry-After are sent again, body and all, and the caller sees the success', async () => {
  script = [[429, '0'], [503, '0']];
  const c = client();
  await expect(c.create('/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } })).resolves.toMatchObject({ metadata: { name: 'x' } });
  expect(requests.map((r) => [r.method, r.body])).toEqual(Array(3).fill(['POST', '{"metadata":{"name":"x"}}']));
  c.close();
});

test('the wait is the seconds the server asked for', async () => {
  script = [[429, '1']];
  const c = client();
  const start = Date.now();
  await c.get('/api/v1/namespaces/default/configmaps/x');
  expect(Date.now() - start).toBeGreaterThanOrEqual(950);
  expect(requests).toHaveLength(2);
  c.close();
});

test('without Retry-After, or past maxRetries, the error is the caller\'s', async () => {
  script = [[500]];
  const c = client();
  await expect(c.get('/api/v1/namespaces/default/configmaps/x')).rejects.toMatchObject({ code: 500, reason: 'InternalError' });
  expect(requests).toHaveLength(1);
  requests = [];
  script = [[429, '0'], [429, '0'], [429, '0']];
  const once = client(1);
  const err = await once.get('/api/v1/namespaces/default/configmaps/x').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect(err).toMatchObject({ code: 429, reason: 'TooManyRequests' });
  expect(requests).toHaveLength(2);
  c.close();
  once.close();
});

test('closing the client ends a wait for a retry', async () => {
  script = [[429, '60']];
  const c = client();
  const pending = c.get('/api/v1/namespaces/default/configmaps/x');
  await new Promise((r) => setTimeout(r, 100));
  c.close();
  await expect(pending).rejects.toThrow(/closed/i);
  expect(requests).toHaveLength(1);
});
