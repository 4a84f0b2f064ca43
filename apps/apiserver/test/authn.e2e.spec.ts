// Authentication through the built API server binary: a real OpenID provider (oidc-provider over TLS) issuing
// ID tokens, client certificates, kubectl 1.33 `auth whoami`, TokenReview, discovery, and bad tokens.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, createPrivateKey, generateKeyPairSync, sign, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { createCA, issueClientCert, issueServingCert, type PemPair } from '@cl/pki';
import { waitFor } from '@cl/testing';
import { MAIN, kubectl, startApiserverProcess, httpsGet, type ApiserverProcess } from './harness';

jest.setTimeout(180_000);

const PROVIDER = join(__dirname, '..', '..', '..', 'libs', 'jwt-authn', 'test', 'fixtures', 'oidc-provider.mjs');

let provider: ChildProcess;
let issuer: string;
let server: ApiserverProcess;
let clientCA: PemPair;
let providerTls: { ca: PemPair; serving: PemPair };
const providerKey = { ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'k1', use: 'sig', alg: 'RS256' };

function startProvider(): Promise<string> {
  provider = spawn(process.execPath, [PROVIDER], {
    env: { ...process.env, TLS_CERT: providerTls.serving.certPem, TLS_KEY: providerTls.serving.keyPem, JWKS: JSON.stringify({ keys: [providerKey] }), PORT: '0', CLIENT_ID: 'my-client' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    provider.stdout!.on('data', (c) => {
      out += c;
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(`https://127.0.0.1:${m[1]}`);
    });
    provider.on('exit', (code) => reject(new Error(`oidc-provider exited ${code}`)));
  });
}

function mint(claims: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${issuer}/__test/id-token`, { method: 'POST', ca: providerTls.ca.certPem, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(body))));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ claims }));
  });
}

/** A token signed with the provider's own key but with claims of our choosing. */
function forge(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'RS256', kid: 'k1' }): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${b64(header)}.${b64(claims)}`;
  const key = createPrivateKey({ key: providerKey as import('node:crypto').JsonWebKey, format: 'jwk' });
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

function kubeconfigFor(name: string, user: Record<string, string>): string {
  const path = join(server.dir, `${name}.kubeconfig`);
  const ca = Buffer.from(server.servingCA()).toString('base64');
  writeFileSync(path, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${server.url}`, `    certificate-authority-data: ${ca}`, 'users:', '- name: u', '  user:', ...Object.entries(user).map(([k, v]) => `    ${k}: ${v}`), 'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  return path;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
let jane: PemPair;
let admin: PemPair;

beforeAll(async () => {
  const providerCA = await createCA('oidc-test-ca');
  providerTls = { ca: providerCA, serving: await issueServingCert(providerCA, { hosts: ['127.0.0.1'] }) };
  issuer = await startProvider();
  clientCA = await createCA('cl-client-ca');
  jane = await issueClientCert(clientCA, { cn: 'jane', groups: ['dev', 'ops'] });
  admin = await issueClientCert(clientCA, { cn: 'cl-admin', groups: ['system:masters'] });
  const dir = mkdtempSync(join(tmpdir(), 'cl-authn-e2e-'));
  writeFileSync(join(dir, 'client-ca.crt'), clientCA.certPem);
  writeFileSync(
    join(dir, 'authn.yaml'),
    `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer}
    audiences: [my-client]
    certificateAuthority: |
${providerCA.certPem.trim().split('\n').map((l) => `      ${l}`).join('\n')}
  claimMappings:
    username: {claim: sub, prefix: "oidc:"}
    groups: {claim: groups, prefix: ""}
    extra:
    - key: example.org/team
      valueExpression: 'claims.?team.orValue("")'
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: no system users
`,
  );
  server = await startApiserverProcess([`--authentication-config=${join(dir, 'authn.yaml')}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`], { dir });
});

afterAll(async () => {
  await server?.cleanup();
  provider?.kill('SIGTERM');
});

describe('kubectl auth whoami', () => {
  test('with a real ID token (--token)', async () => {
    const token = await mint({ sub: 'jane', groups: ['dev', 'ops'], team: 'blue' });
    const r = kubectl(kubeconfigFor('empty', {}), ['auth', 'whoami', '--token', token]);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').map((l) => l.trim().split(/\s{2,}/))).toEqual(
      expect.arrayContaining([
        ['ATTRIBUTE', 'VALUE'],
        ['Username', 'oidc:jane'],
        ['Groups', '[dev ops system:authenticated]'],
        ['Extra: example.org/team', '[blue]'],
      ]),
    );
  });

  test('with a client certificate', () => {
    const r = kubectl(kubeconfigFor('jane', { 'client-certificate-data': b64(jane.certPem), 'client-key-data': b64(jane.keyPem) }), ['auth', 'whoami', '-o', 'json']);
    expect(r.stderr).toBe('');
    const fingerprint = createHash('sha256').update(new X509Certificate(jane.certPem).raw).digest('hex');
    expect(JSON.parse(r.stdout)).toEqual({
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      status: {
        userInfo: {
          username: 'jane',
          groups: ['dev', 'ops', 'system:authenticated'],
          extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${fingerprint}`] },
        },
      },
    });
  });

  test('a bad token is refused with Unauthorized', () => {
    const r = kubectl(kubeconfigFor('empty2', {}), ['auth', 'whoami', '--token', 'not-a-jwt']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  });

  test('discovery lists the review resources', () => {
    const r = kubectl(kubeconfigFor('jane2', { 'client-certificate-data': b64(jane.certPem), 'client-key-data': b64(jane.keyPem) }), ['api-resources', '--api-group=authentication.k8s.io', '-o', 'name']);
    expect(r.stdout.trim().split('\n').sort()).toEqual(['selfsubjectreviews.authentication.k8s.io', 'tokenreviews.authentication.k8s.io']);
  });
});

function call(method: string, path: string, body: unknown, user: PemPair): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path, method, ca: server.servingCA(), cert: user.certPem, key: user.keyPem, agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function post(path: string, body: unknown, user: PemPair): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await call('POST', path, body, user);
  return { status: r.status, body: JSON.parse(r.text) };
}

describe('TokenReview', () => {
  const review = (token: string) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });

  test('a valid token is reviewed as its user', async () => {
    const token = await mint({ sub: 'bob', groups: ['qa'] });
    const r = await post('/apis/authentication.k8s.io/v1/tokenreviews', review(token), admin);
    expect(r.status).toBe(201);
    expect(r.body.status).toEqual({ authenticated: true, user: { username: 'oidc:bob', groups: ['qa', 'system:authenticated'] } });
  });

  test('an invalid token is reviewed as unauthenticated, with the reason', async () => {
    const r = await post('/apis/authentication.k8s.io/v1/tokenreviews', review(forge({ iss: issuer, aud: 'my-client', sub: 'x', exp: 1 })), admin);
    expect(r.status).toBe(201);
    expect(r.body.status).toEqual({ authenticated: false, user: {}, error: expect.stringMatching(/^oidc: verify token: oidc: token is expired/) });
  });
});

test('a TokenReview sent as protobuf (as the kubelet sends it) is answered', async () => {
  const token = await mint({ sub: 'proto' });
  const field = (no: number, body: Buffer) => Buffer.concat([Buffer.from([(no << 3) | 2]), varint(body.length), body]);
  const varint = (n: number) => {
    const out: number[] = [];
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    out.push(n);
    return Buffer.from(out);
  };
  const typeMeta = Buffer.concat([field(1, Buffer.from('authentication.k8s.io/v1')), field(2, Buffer.from('TokenReview'))]);
  const raw = Buffer.concat([field(1, Buffer.alloc(0)), field(2, field(1, Buffer.from(token)))]);
  const body = Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta), field(2, raw)]);
  const r = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path: '/apis/authentication.k8s.io/v1/tokenreviews', method: 'POST', ca: server.servingCA(), cert: admin.certPem, key: admin.keyPem, agent: false, headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  expect(r.status).toBe(201);
  expect(JSON.parse(r.text).status).toEqual({ authenticated: true, user: { username: 'oidc:proto', groups: ['system:authenticated'] } });
});

describe('anonymous and bad input', () => {
  test.each(['/healthz', '/livez', '/readyz', '/version'])('%s is reachable without credentials', async (path) => {
    expect((await httpsGet(server, path)).status).toBe(200);
  });

  const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
  const now = () => Math.floor(Date.now() / 1000);

  test.each<[string, () => Promise<string> | string]>([
    ['malformed', () => 'a.b.c'],
    ['truncated', async () => (await mint({ sub: 'jane' })).slice(0, -20)],
    ['alg none', () => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: issuer, aud: 'my-client', sub: 'root', exp: now() + 60 })).toString('base64url')}.`],
    ['HS256 with the public key as secret', () => forge({ iss: issuer, aud: 'my-client', sub: 'root', exp: now() + 60 }, { alg: 'HS256', kid: 'k1' })],
    ['wrong issuer', () => forge({ iss: 'https://evil.example', aud: 'my-client', sub: 'root', exp: now() + 60 })],
    ['expired', () => forge({ iss: issuer, aud: 'my-client', sub: 'jane', exp: now() - 5 })],
    ['oversized (about 90 KiB token) with a bad signature', () => forge({ iss: issuer, aud: 'my-client', sub: 'jane', exp: now() + 60, pad: 'x'.repeat(64 * 1024) }).replace(/(.)(.{10})$/, (_m, c: string, tail: string) => (c === 'A' ? 'B' : 'A') + tail)],
  ])('%s token: 401 Unauthorized, the reason only in the log', async (_name, make) => {
    const token = await make();
    const r = await httpsGet(server, '/api', { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toEqual(unauthorized);
  });

  test('the reason goes to the log, not to the caller', async () => {
    const r = await httpsGet(server, '/api', { headers: { authorization: `Bearer ${forge({ iss: issuer, aud: 'other-client', sub: 'x', exp: now() + 60 })}` } });
    expect(r.body).not.toContain('audience');
    await waitFor(async () => (server.output().includes('Unable to authenticate the request: oidc: verify token: oidc: expected audience "my-client" got ["other-client"]') ? true : undefined), 'the reason in the log');
  });

  test('10,000 random byte strings as bearer tokens: every one a 401, and the server keeps serving', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8, rejectUnauthorized: false });
    const statuses = new Map<number, number>();
    let seed = 0x2545f491;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) & 0xff;
    const token = () => {
      const len = 1 + (rnd() * 4 + (rnd() & 3));
      const bytes: number[] = [];
      // Every byte a header value can carry after "Bearer " without ending the token: 0x21-0x7e and 0x80-0xff.
      while (bytes.length < len) {
        const b = rnd();
        if ((b >= 0x21 && b <= 0x7e) || b >= 0x80) bytes.push(b);
      }
      return Buffer.from(bytes).toString('latin1');
    };
    const one = (t: string) =>
      new Promise<void>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, path: '/api', agent, headers: { authorization: `Bearer ${t}` } }, (res) => {
          statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', reject);
        req.end();
      });
    const tokens = Array.from({ length: 10_000 }, token);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < tokens.length) await one(tokens[next++]);
      }),
    );
    agent.destroy();
    expect(Object.fromEntries(statuses)).toEqual({ 401: 10_000 });
    expect((await httpsGet(server, '/readyz')).status).toBe(200);
    const good = await mint({ sub: 'after' });
    expect(kubectl(kubeconfigFor('after', {}), ['auth', 'whoami', '--token', good, '-o', 'jsonpath={.status.userInfo.username}']).stdout).toBe('oidc:after');
  });
});

test('the JWT and token cache metrics are exposed under upstream names', async () => {
  const r = await call('GET', '/metrics', undefined, admin);
  expect(r.status).toBe(200);
  const text = r.text;
  for (const name of ['apiserver_authentication_jwt_authenticator_latency_seconds_count', 'authentication_token_cache_request_total', 'apiserver_authentication_config_controller_automatic_reloads_total']) {
    expect(text).toContain(name);
  }
  expect(text).toMatch(/^authentication_attempts\{result="error"\} [1-9]\d*$/m);
  expect(text).toMatch(/^authentication_attempts\{result="success"\} [1-9]\d*$/m);
  expect(text).toMatch(/^authenticated_user_requests\{username="other"\} [1-9]\d*$/m);
});

test('bad authentication flags stop the server before it binds, naming every problem', () => {
  const r = spawnSync(process.execPath, [MAIN, '--authentication-config=/nonexistent/authn.yaml', '--client-ca-file=/nonexistent/ca.crt', '--data-dir=/tmp/cl-authn-bad', '--cert-dir=/tmp/cl-authn-bad/certs'], { encoding: 'utf8', timeout: 30_000 });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('Error: failed to load client CA file "/nonexistent/ca.crt": open /nonexistent/ca.crt: no such file or directory');
  expect(r.stderr).toContain('Error: failed to load authentication configuration from file "/nonexistent/authn.yaml": open /nonexistent/authn.yaml: no such file or directory');
});

test('the authentication config file is reloaded when it changes; a broken one keeps the old', async () => {
  const file = join(server.dir, 'authn.yaml');
  const original = readFileSync(file, 'utf8');
  const whoami = async () => kubectl(kubeconfigFor('reload', {}), ['auth', 'whoami', '--token', await mint({ sub: 'jane' }), '-o', 'jsonpath={.status.userInfo.username}']).stdout;
  writeFileSync(file, 'kind: [');
  writeFileSync(file, original.replace('prefix: "oidc:"', 'prefix: "v2:"'));
  await waitFor(async () => ((await whoami()) === 'v2:jane' ? true : undefined), 'the reloaded username prefix');
  writeFileSync(file, original.replace('audiences: [my-client]', 'audiences: []'));
  await waitFor(async () => (/failed to load authentication config: .*audiences/.test(server.output()) ? true : undefined), 'the rejected reload in the log');
  expect(await whoami()).toBe('v2:jane');
  expect(server.output()).toContain('reloaded authentication config');
});

describe('anonymous limited by the configuration file', () => {
  let limited: ApiserverProcess;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-authn-anon-'));
    writeFileSync(join(dir, 'authn.yaml'), 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n  - path: /readyz\n');
    limited = await startApiserverProcess([`--authentication-config=${join(dir, 'authn.yaml')}`], { dir });
  });
  afterAll(async () => {
    await limited?.cleanup();
  });

  test.each([
    ['/livez', 200],
    ['/readyz', 200],
    ['/livez?verbose', 200],
    ['/healthz', 401],
    ['/version', 401],
    ['/api', 401],
  ])('%s without credentials: %i', async (path, status) => {
    expect((await httpsGet(limited, path)).status).toBe(status);
  });
});
