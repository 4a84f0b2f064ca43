// Reload of the authorization config file, and the Express middleware in a real Express app.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import express from 'express';
import { userInfo, type Attributes, type UserInfo } from '@cl/auth';
import { AuthorizerChain, ReloadingAuthorizer, authorizationMiddleware, nonResourceAttributes } from '../src';
import { answer, metricValue, oneWebhookConfig, startFakeWebhook, type FakeWebhook } from './fake-webhook';

jest.setTimeout(60_000);
let fake: FakeWebhook;
beforeAll(async () => {
  fake = await startFakeWebhook();
});
afterAll(() => fake.close());

const attrs: Attributes = nonResourceAttributes(userInfo({ username: 'alice' }), 'get', '/x');

const config = (name: string, kubeconfig: string, comment = '') => `${comment}apiVersion: apiserver.config.k8s.io/v1alpha1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: ${name}
  webhook:
    timeout: 5s
    subjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${kubeconfig}}
`;

describe('reload', () => {
  test('a bad file keeps the chain (failure counted); a comment changes nothing; a new config swaps in empty caches', async () => {
    const file = join(fake.dir, 'authz.yaml');
    const kc = fake.kubeconfig();
    writeFileSync(file, config('first', kc));
    const logs: string[] = [];
    const r = new ReloadingAuthorizer({ file, pollMs: 3_600_000, log: (m) => logs.push(m), apiServerId: 'apiserver-test' }, config('first', kc));
    r.start();
    await r.check();
    const labels = (status: string) => ({ status, apiserver_id_hash: 'sha256:' + require('node:crypto').createHash('sha256').update('apiserver-test').digest('hex') });
    const successes = await metricValue('apiserver_authorization_config_controller_automatic_reloads_total', labels('success'));
    fake.respond = answer({ allowed: true });
    fake.requests = [];
    expect((await r.authorize(attrs)).decision).toBe('Allow');
    const first = r.current;

    writeFileSync(file, 'apiVersion: apiserver.config.k8s.io\n');
    await r.check();
    expect(r.current).toBe(first);
    expect(await metricValue('apiserver_authorization_config_controller_automatic_reloads_total', labels('failure'))).toBe(1);
    expect(logs.some((l) => l.includes('keeping the current authorizers'))).toBe(true);

    writeFileSync(file, config('first', kc, '# only a comment\n'));
    await r.check();
    expect(r.current).toBe(first);
    expect((await r.authorize(attrs)).decision).toBe('Allow');
    expect(fake.requests).toHaveLength(1); // cache kept

    writeFileSync(file, config('second', kc));
    await r.check();
    expect(r.current).not.toBe(first);
    expect(await metricValue('apiserver_authorization_config_controller_automatic_reloads_total', labels('success'))).toBe(successes + 1);
    expect((await r.authorize(attrs)).decision).toBe('Allow');
    expect(fake.requests).toHaveLength(2); // new webhook, empty cache
    await r.close();
  });

  test('the watch picks up a change without an explicit check', async () => {
    const file = join(fake.dir, 'watched.yaml');
    const kc = fake.kubeconfig();
    writeFileSync(file, config('watched', kc));
    const r = new ReloadingAuthorizer({ file, pollMs: 200, log: () => undefined }, config('watched', kc));
    r.start();
    const first = r.current;
    writeFileSync(file, config('watched-2', kc));
    for (let i = 0; i < 100 && r.current === first; i++) await new Promise((res) => setTimeout(res, 50));
    expect(r.current.config.authorizers[0].name).toBe('watched-2');
    await r.close();
  });
});

describe('Express middleware', () => {
  test('allow passes through, no opinion is a 403 Status, a failing webhook a 500', async () => {
    const chain = AuthorizerChain.fromConfig(
      oneWebhookConfig(fake, 'mw'),
      { log: () => undefined },
    );
    const app = express();
    const users: Record<string, UserInfo> = { alice: userInfo({ username: 'alice' }) };
    app.use('/svc', authorizationMiddleware(chain, { user: (req: IncomingMessage) => users[String(req.headers['x-user'] ?? '')] }));
    app.get('/svc/api/v1/namespaces/ns/pods/p', (_req, res) => void res.send('ok'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    const get = (path: string, user?: string) =>
      new Promise<{ status: number; body: string; type: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path, headers: user ? { 'x-user': user } : {} }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body, type: String(res.headers['content-type']) }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      fake.respond = answer({ allowed: true });
      expect(await get('/svc/api/v1/namespaces/ns/pods/p', 'alice')).toMatchObject({ status: 200, body: 'ok' });
      expect(fake.requests.at(-1)!.body).toContain('"resourceAttributes":{"namespace":"ns","verb":"get","version":"v1","resource":"pods","name":"p"}');
      expect((await get('/svc/api/v1/namespaces/ns/pods/p')).status).toBe(401);
      fake.respond = answer({ allowed: false, reason: 'not yours' });
      const denied = await get('/svc/api/v1/namespaces/ns/pods/q', 'alice');
      expect(denied.status).toBe(403);
      expect(JSON.parse(denied.body).message).toBe('pods "q" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "ns": not yours');
      fake.respond = (_req, res) => res.end('error response');
      const failed = await get('/svc/api/v1/namespaces/ns/pods/r', 'alice');
      expect(failed.status).toBe(500);
      expect(failed.body).toBe(`Internal Server Error: "/svc/api/v1/namespaces/ns/pods/r": invalid character 'e' looking for beginning of value\n`);
    } finally {
      server.close();
      chain.close();
    }
  });
});
