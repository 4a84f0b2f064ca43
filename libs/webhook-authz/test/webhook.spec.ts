// The webhook authorizer against a real HTTPS webhook that requires a client certificate.
import { userInfo, type Attributes } from '@cl/auth';
import type { WebhookConfiguration } from '@cl/config';
import { AuthorizerChain, DEFAULT_BACKOFF, WebhookAuthorizer, type Backoff } from '../src';
import { createCA } from '@cl/pki';
import { answer, metricValue, startFakeWebhook, type FakeWebhook } from './fake-webhook';

jest.setTimeout(60_000);

// Fast retries keep the suite short; one test below uses upstream's real backoff.
const FAST: Backoff = { durationMs: 10, factor: 1.5, jitter: 0.2, steps: 5 };
let fake: FakeWebhook;
let seq = 0;

beforeAll(async () => {
  fake = await startFakeWebhook();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests = [];
  fake.respond = answer({ allowed: true });
});

const alice = userInfo({ username: 'alice', uid: '1', groups: ['group1'], extra: { key1: ['a'] } });
const podGet = (over: Partial<Attributes> = {}): Attributes => ({
  user: alice,
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/kittensandponies/pods/p',
  namespace: 'kittensandponies',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  name: 'p',
  ...over,
});
const healthz: Attributes = { ...podGet(), isResourceRequest: false, path: '/healthz', namespace: '', resource: '', name: '', apiVersion: '' };

function webhook(over: Partial<WebhookConfiguration> = {}, kubeconfig = fake.kubeconfig()): WebhookConfiguration {
  return {
    authorizedTTL: 300_000,
    unauthorizedTTL: 30_000,
    timeout: 5_000,
    subjectAccessReviewVersion: 'v1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: 'NoOpinion',
    connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
    ...over,
  };
}

const logs: string[] = [];
function authorizer(over: Partial<WebhookConfiguration> = {}, opts: { now?: () => number; backoff?: Backoff; kubeconfig?: string } = {}) {
  const name = `w${++seq}`;
  const a = new WebhookAuthorizer({ name, webhook: webhook(over, opts.kubeconfig), backoff: opts.backoff ?? FAST, now: opts.now, log: (m) => logs.push(m) });
  closers.push(() => a.close());
  return a;
}
const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((c) => c()));

describe('answers', () => {
  test.each([
    ['allow', { allowed: true, reason: 'ok' }, 'Allow', 'ok', undefined],
    ['deny', { allowed: false, denied: true, reason: 'nope' }, 'Deny', 'nope', undefined],
    ['no opinion', { allowed: false, reason: 'meh' }, 'NoOpinion', 'meh', undefined],
    ['both allow and deny', { allowed: true, denied: true }, 'Deny', '', 'webhook subject access review returned both allow and deny response'],
  ])('%s', async (_n, status, decision, reason, error) => {
    fake.respond = answer(status);
    const r = await authorizer().authorize(podGet());
    expect(r.decision).toBe(decision);
    expect(r.reason).toBe(reason);
    expect(r.error?.message).toBe(error);
  });

  test('one POST with the upstream request line, headers, client certificate and exact body', async () => {
    await authorizer().authorize(podGet());
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/authorize?timeout=5s');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.accept).toBe('application/json, */*');
    expect(req.clientCN).toBe('cl-apiserver');
    expect(req.body).toBe(
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"namespace":"kittensandponies","verb":"get","version":"v1","resource":"pods","name":"p"},"user":"alice","groups":["group1"],"extra":{"key1":["a"]},"uid":"1"},"status":{"allowed":false}}\n',
    );
  });

  test('v1beta1: sends and expects v1beta1', async () => {
    fake.respond = (_req, res) => res.end(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1beta1', kind: 'SubjectAccessReview', status: { allowed: true } }));
    const r = await authorizer({ subjectAccessReviewVersion: 'v1beta1' }).authorize(podGet());
    expect(r.decision).toBe('Allow');
    expect(fake.requests[0].body).toContain('"apiVersion":"authorization.k8s.io/v1beta1"');
    expect(fake.requests[0].body).toContain('"group":["group1"]');
  });

  test('a token is sent as Bearer over https (no path: POST /)', async () => {
    const kc = fake.kubeconfig({ name: 'token', server: fake.url, user: { token: 'abc', 'client-certificate': 'client.pem', 'client-key': 'client-key.pem' } });
    await authorizer({}, { kubeconfig: kc }).authorize(podGet());
    expect(fake.requests[0].url).toBe('/?timeout=5s');
    expect(fake.requests[0].headers.authorization).toBe('Bearer abc');
  });
});

describe('failures and the failure policy', () => {
  test.each([
    ['500 is retried', 500, 5, 'an error on the server ("boom") has prevented the request from succeeding'],
    ['429 is retried', 429, 5, 'the server has received too many requests and has asked us to try again later'],
    ['404 is not', 404, 1, 'the server could not find the requested resource'],
    ['403 is not', 403, 1, 'boom'],
    ['401 is not', 401, 1, 'the server has asked for the client to provide credentials'],
    ['400 is not', 400, 1, 'the server rejected our request for an unknown reason'],
    ['503 without Retry-After is not', 503, 1, 'the server is currently unable to handle the request'],
  ])('%s', async (_n, code, calls, message) => {
    fake.respond = (_req, res) => {
      res.statusCode = code;
      res.setHeader('Content-Type', 'text/plain');
      res.end('boom\n');
    };
    const a = authorizer();
    const r = await a.authorize(podGet());
    expect(fake.requests).toHaveLength(calls);
    expect(r.decision).toBe('NoOpinion');
    expect(r.error?.message).toBe(message);
    expect(await metricValue('apiserver_authorization_webhook_evaluations_total', { name: a.name, result: 'error' })).toBe(calls);
    expect(await metricValue('apiserver_authorization_webhook_evaluations_fail_open_total', { name: a.name, result: 'error' })).toBe(1);
  });

  test("upstream's own backoff: 500 answered 5 times, the last answer's error returned", async () => {
    fake.respond = (_req, res) => {
      res.statusCode = 500;
      res.end(`down ${fake.requests.length}`);
    };
    const r = await authorizer({}, { backoff: DEFAULT_BACKOFF }).authorize(podGet());
    expect(fake.requests).toHaveLength(5);
    expect(r.error?.message).toBe('an error on the server ("down 5") has prevented the request from succeeding');
  });

  test('504 counts as a timeout', async () => {
    fake.respond = (_req, res) => {
      res.statusCode = 504;
      res.end();
    };
    const a = authorizer();
    await a.authorize(podGet());
    expect(fake.requests).toHaveLength(5);
    expect(await metricValue('apiserver_authorization_webhook_evaluations_total', { name: a.name, result: 'timeout' })).toBe(5);
    expect(await metricValue('apiserver_authorization_webhook_evaluations_fail_open_total', { name: a.name, result: 'timeout' })).toBe(1);
  });

  test('slow webhook: the attempt ends at the timeout and is not retried; Deny policy denies with the error', async () => {
    const pending: Array<() => void> = [];
    fake.respond = (_req, res) => void pending.push(() => res.end(JSON.stringify({ status: { allowed: true } })));
    const a = authorizer({ timeout: 300, failurePolicy: 'Deny' });
    const r = await a.authorize(podGet());
    pending.forEach((p) => p());
    expect(fake.requests).toHaveLength(1);
    expect(r.decision).toBe('Deny');
    expect(r.error?.message).toMatch(/^Post "https:\/\/127\.0\.0\.1:\d+\/authorize\?timeout=300ms": context deadline exceeded$/);
    expect(await metricValue('apiserver_authorization_webhook_evaluations_total', { name: a.name, result: 'timeout' })).toBe(1);
  });

  test.each([['NoOpinion'], ['Deny']])('webhook down, failurePolicy %s', async (policy) => {
    const kc = fake.kubeconfig({ name: 'down', server: 'https://127.0.0.1:1/authorize' });
    const a = authorizer({ failurePolicy: policy }, { kubeconfig: kc });
    const r = await a.authorize(podGet());
    expect(r.decision).toBe(policy);
    expect(r.error?.message).toBe('Post "https://127.0.0.1:1/authorize?timeout=5s": dial tcp 127.0.0.1:1: connect: connection refused');
    expect(logs.at(-1)).toBe(`Failed to make webhook authorizer request: ${r.error?.message}`);
  });

  test('a server certificate from another CA fails verification after one attempt', async () => {
    const kc = fake.kubeconfig({ name: 'badca', cluster: { 'certificate-authority-data': Buffer.from((await createCA('other')).certPem).toString('base64'), 'certificate-authority': '' } });
    const a = authorizer({}, { kubeconfig: kc });
    const r = await a.authorize(podGet());
    expect(r.error?.message).toContain('x509: certificate signed by unknown authority');
    expect(fake.requests).toHaveLength(0);
    expect(await metricValue('apiserver_authorization_webhook_evaluations_total', { name: a.name, result: 'error' })).toBe(1);
  });

  test('200 with a body that is not JSON is an error (Deny policy: Deny + error)', async () => {
    fake.respond = (_req, res) => res.end('error response');
    const r = await authorizer({ failurePolicy: 'Deny' }).authorize(podGet());
    expect(fake.requests).toHaveLength(1);
    expect(r.decision).toBe('Deny');
    expect(r.error?.message).toBe("invalid character 'e' looking for beginning of value");
  });

  test('cancelled by the caller: canceled attempt, no fail-open count', async () => {
    fake.respond = () => undefined; // never answers
    const a = authorizer();
    const ctl = new AbortController();
    const p = a.authorize(podGet(), { signal: ctl.signal });
    await new Promise<void>((r) => {
      const poll = () => (fake.requests.length ? r() : setTimeout(poll, 10));
      poll();
    });
    ctl.abort();
    const r = await p;
    expect(r.error?.message).toContain('context canceled');
    expect(await metricValue('apiserver_authorization_webhook_evaluations_total', { name: a.name, result: 'canceled' })).toBe(1);
    expect(await metricValue('apiserver_authorization_webhook_evaluations_fail_open_total', { name: a.name, result: 'error' })).toBe(0);
  });
});

describe('cache', () => {
  test('allowed answers live authorizedTTL, others unauthorizedTTL; errors are never cached', async () => {
    let now = 1_000_000;
    const a = authorizer({ authorizedTTL: 2_000, unauthorizedTTL: 1_000 }, { now: () => now });
    await a.authorize(podGet());
    await a.authorize(podGet());
    expect(fake.requests).toHaveLength(1);
    now += 1_999;
    await a.authorize(podGet());
    expect(fake.requests).toHaveLength(1);
    now += 2;
    await a.authorize(podGet());
    expect(fake.requests).toHaveLength(2);

    fake.respond = answer({ allowed: false, reason: 'meh' });
    const other = podGet({ name: 'q' });
    await a.authorize(other);
    await a.authorize(other);
    expect(fake.requests).toHaveLength(3);
    now += 1_001;
    await a.authorize(other);
    expect(fake.requests).toHaveLength(4);

    fake.respond = (_req, res) => {
      res.statusCode = 500;
      res.end('x');
    };
    const third = podGet({ name: 'r' });
    await a.authorize(third);
    expect(fake.requests).toHaveLength(9);
    fake.respond = answer({ allowed: true });
    expect((await a.authorize(third)).decision).toBe('Allow');
    expect(fake.requests).toHaveLength(10);
  });

  test('key: group order matters, extra key order does not, huge attributes are not cached', async () => {
    const a = authorizer();
    await a.authorize(podGet({ user: { ...alice, groups: ['a', 'b'], extra: { x: ['1'], y: ['2'] } } }));
    await a.authorize(podGet({ user: { ...alice, groups: ['a', 'b'], extra: { y: ['2'], x: ['1'] } } }));
    expect(fake.requests).toHaveLength(1);
    await a.authorize(podGet({ user: { ...alice, groups: ['b', 'a'], extra: { x: ['1'], y: ['2'] } } }));
    expect(fake.requests).toHaveLength(2);
    const big = 'x'.repeat(2000);
    const huge = podGet({ verb: big, apiGroup: big, apiVersion: big, resource: big, name: big, namespace: '', path: '' });
    await a.authorize(huge);
    await a.authorize(huge);
    expect(fake.requests).toHaveLength(4);
    const justUnder = podGet({ verb: big, apiGroup: big, apiVersion: big, resource: big, name: 'x'.repeat(1999), namespace: '', path: '' });
    await a.authorize(justUnder);
    await a.authorize(justUnder);
    expect(fake.requests).toHaveLength(5);
  });
});

describe('match conditions', () => {
  const conditions = (...expressions: string[]) => ({ matchConditions: expressions.map((expression) => ({ expression })) });

  test('all TRUE calls the webhook', async () => {
    const r = await authorizer(conditions("('group1' in request.groups)", "('a' in request.extra['key1'])", "request.uid == '1'")).authorize(podGet());
    expect(r.decision).toBe('Allow');
    expect(fake.requests).toHaveLength(1);
  });

  test('FALSE skips the webhook with no opinion and counts an exclusion', async () => {
    const a = authorizer(conditions("has(request.resourceAttributes) && request.resourceAttributes.namespace == 'other'"));
    const r = await a.authorize(podGet());
    expect(r).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(fake.requests).toHaveLength(0);
    expect(await metricValue('apiserver_authorization_match_condition_exclusions_total', { type: 'Webhook', name: a.name })).toBe(1);
  });

  test.each([['NoOpinion'], ['Deny']])('an error with no FALSE follows failurePolicy %s and returns the error', async (policy) => {
    const a = authorizer({ failurePolicy: policy, ...conditions("request.user == 'alice'", "request.resourceAttributes.namespace == 'x'") });
    const r = await a.authorize(healthz);
    expect(r.decision).toBe(policy);
    expect(r.error?.message).toBe("cel evaluation error: expression 'request.resourceAttributes.namespace == 'x'' resulted in error: no such key: resourceAttributes");
    expect(fake.requests).toHaveLength(0);
    expect(await metricValue('apiserver_authorization_match_condition_evaluation_errors_total', { type: 'Webhook', name: a.name })).toBe(1);
  });

  test.each([
    ['FALSE first', ["request.user != 'alice'", "request.resourceAttributes.namespace == 'x'"], 0],
    ['error first', ["request.resourceAttributes.namespace == 'x'", "request.user != 'alice'"], 1],
  ])('FALSE wins over errors (%s)', async (_n, exprs, errorCount) => {
    const a = authorizer({ failurePolicy: 'Deny', ...conditions(...exprs) });
    const r = await a.authorize(healthz);
    expect(r).toEqual({ decision: 'NoOpinion', reason: '' });
    expect(await metricValue('apiserver_authorization_match_condition_evaluation_errors_total', { type: 'Webhook', name: a.name })).toBe(errorCount);
  });
});

describe('chain', () => {
  const quiet = { log: (m: string) => void logs.push(m) };
  const whAuthorizer = (name: string, kubeconfig: string) => ({ type: 'Webhook', name, webhook: webhook({}, kubeconfig) });

  test('no opinions join their reasons; the first Deny wins and later webhooks are not asked', async () => {
    fake.respond = (req, res) => res.end(JSON.stringify({ status: { allowed: false, reason: req.url.startsWith('/a') ? 'r1' : 'r2' } }));
    const two = AuthorizerChain.fromConfig({ authorizers: [whAuthorizer('chain-a', fake.kubeconfig({ name: 'a', server: `${fake.url}/a` })), whAuthorizer('chain-b', fake.kubeconfig({ name: 'b', server: `${fake.url}/b` }))] }, quiet);
    closers.push(() => two.close());
    expect(await two.authorize(podGet())).toEqual({ decision: 'NoOpinion', reason: 'r1\nr2' });

    fake.requests = [];
    fake.respond = (req, res) => res.end(JSON.stringify({ status: req.url.startsWith('/deny') ? { allowed: false, denied: true, reason: 'no' } : { allowed: true } }));
    const denyFirst = AuthorizerChain.fromConfig({ authorizers: [whAuthorizer('chain-deny', fake.kubeconfig({ name: 'd', server: `${fake.url}/deny` })), whAuthorizer('chain-allow', fake.kubeconfig({ name: 'e', server: `${fake.url}/allow` }))] }, quiet);
    closers.push(() => denyFirst.close());
    expect(await denyFirst.authorize(podGet())).toEqual({ decision: 'Deny', reason: 'no' });
    expect(fake.requests.map((r) => r.url)).toEqual(['/deny?timeout=5s']);
    expect(await metricValue('apiserver_authorization_decisions_total', { type: 'Webhook', name: 'chain-deny', decision: 'denied' })).toBe(1);
  });

  test('a failing NoOpinion webhook before AlwaysAllow: allowed, error dropped; AlwaysDeny is a no-opinion', async () => {
    fake.respond = (_req, res) => res.end('error response');
    const c = AuthorizerChain.fromConfig({ authorizers: [whAuthorizer('chain-failing', fake.kubeconfig()), { type: 'AlwaysDeny', name: 'alwaysdeny' }, { type: 'AlwaysAllow', name: 'alwaysallow' }] }, quiet);
    closers.push(() => c.close());
    expect(await c.authorize(podGet())).toEqual({ decision: 'Allow', reason: '' });
    expect(await metricValue('apiserver_authorization_webhook_evaluations_fail_open_total', { name: 'chain-failing', result: 'error' })).toBe(1);
    const only = AuthorizerChain.fromConfig({ authorizers: [whAuthorizer('chain-failing2', fake.kubeconfig()), { type: 'AlwaysDeny', name: 'alwaysdeny' }] }, quiet);
    closers.push(() => only.close());
    const r = await only.authorize(podGet());
    expect(r.decision).toBe('NoOpinion');
    expect(r.reason).toBe('Everything is forbidden.');
    expect(r.error?.message).toBe("invalid character 'e' looking for beginning of value");
  });
});
