// What a careless or hostile client sends, against the built binary with RBAC (kubectl 1.33 and raw HTTPS):
// a presented but invalid bearer token is a 401 (never anonymous), dot-segment names are refused rather than
// resolved, bodies over the limit get upstream's 413 Status on a connection that is not reset, bodies nested past
// the decoder's depth get a 400 and the server keeps serving, YAML bodies are taken, and a PUT naming another
// object, a resourceVersion past uint64 and an oversized URL get upstream's answers. One server for all cases.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueClientCert, type PemPair } from '@cl/pki';
import { kubectl, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(180_000);

let dir: string;
let api: ApiserverProcess;
let admin: PemPair;
let adminKubeconfig: string;
let anonymousKubeconfig: string;

function kubeconfig(name: string, user: string[]): string {
  const file = join(dir, `${name}.kubeconfig`);
  const ca = Buffer.from(api.servingCA()).toString('base64');
  writeFileSync(file, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.url}`, `    certificate-authority-data: ${ca}`, 'users:', '- name: u', '  user:', ...user.map((l) => `    ${l}`), 'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  return file;
}

interface Reply {
  status: number;
  body: string;
  /** The socket error, when the connection was reset or closed before an answer. */
  error?: string;
}

/**
 * One request on its own connection. `body` may be a generator of chunks (sent chunked, as a client streams) and
 * the answer is taken whenever it comes, even while the body is still being sent.
 */
function send(method: string, path: string, opts: { body?: string | Buffer | (() => Iterable<Buffer>); headers?: Record<string, string>; as?: 'admin' | 'anonymous' } = {}): Promise<Reply> {
  return new Promise((resolve) => {
    const auth = opts.as === 'anonymous' ? {} : { cert: admin.certPem, key: admin.keyPem };
    const req = request({ host: '127.0.0.1', port: api.port, method, path, headers: opts.headers, ca: api.servingCA(), agent: false, ...auth }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        resolve({ status: res.statusCode!, body: text });
        // As Go's client: a body still being sent when the answer is complete is abandoned with its connection.
        if (!req.writableFinished) req.destroy();
      });
      res.on('error', (e) => resolve({ status: res.statusCode!, body: text, error: e.message }));
    });
    req.on('error', (e) => resolve({ status: 0, body: '', error: e.message }));
    const body = opts.body;
    if (typeof body === 'function') {
      const chunks = body()[Symbol.iterator]();
      const pump = () => {
        for (let c = chunks.next(); !c.done && !req.destroyed; c = chunks.next()) if (!req.write(c.value)) return void req.once('drain', pump);
        if (!req.destroyed) req.end();
      };
      req.on('error', () => undefined);
      pump();
    } else req.end(body);
  });
}

const json = (r: Reply) => JSON.parse(r.body) as { kind: string; code: number; reason: string; message: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cl-hostile-'));
  const ca = await createCA('hostile-e2e-client-ca');
  writeFileSync(join(dir, 'client-ca.crt'), ca.certPem);
  admin = await issueClientCert(ca, { cn: 'cl-admin', groups: ['system:masters'] });
  api = await startApiserverProcess(['--authorization-mode=RBAC', `--client-ca-file=${join(dir, 'client-ca.crt')}`], { dir: join(dir, 'server') });
  const b64 = (t: string) => Buffer.from(t).toString('base64');
  adminKubeconfig = kubeconfig('admin', [`client-certificate-data: ${b64(admin.certPem)}`, `client-key-data: ${b64(admin.keyPem)}`]);
  anonymousKubeconfig = kubeconfig('anonymous', []);
  const made = kubectl(adminKubeconfig, ['create', 'configmap', 'present', '-n', 'default', '--from-literal=k=v']);
  expect(made.stderr).toBe('');
});

afterAll(async () => {
  await api?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('authentication', () => {
  test('a bearer token nobody accepts is a 401, not anonymous; no credential at all is anonymous (403 under RBAC)', async () => {
    const bad = await send('GET', '/api/v1/namespaces/a/secrets', { headers: { Authorization: 'Bearer not-a-real-token' }, as: 'anonymous' });
    expect([bad.status, json(bad).reason]).toEqual([401, 'Unauthorized']);
    const none = await send('GET', '/api/v1/namespaces/a/secrets', { as: 'anonymous' });
    expect([none.status, json(none).message]).toEqual([403, 'secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "a"']);
  });

  test('kubectl with a stale token says it must log in, as against kube-apiserver', () => {
    const r = kubectl(anonymousKubeconfig, ['--token=stale-token', 'get', 'secrets', '-n', 'a']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n').pop()).toBe('error: You must be logged in to the server (the server has asked for the client to provide credentials)');
  });
});

describe('names', () => {
  test.each([
    ['%2e%2e', '..', `may not be '..'`],
    ['%2E%2E', '..', `may not be '..'`],
    ['%2e', '.', `may not be '.'`],
  ])('GET .../configmaps/%s is a 400 naming %j, never the namespace the resolved path would be', async (segment, name, why) => {
    const r = await send('GET', `/api/v1/namespaces/default/configmaps/${segment}`);
    expect([r.status, json(r).kind, json(r).message]).toEqual([400, 'Status', `Name parameter invalid: "${name}": ${why}`]);
  });

  test('a PUT whose body names another object is a 400, also when the URL names none that exists', async () => {
    const r = await send('PUT', '/api/v1/namespaces/default/configmaps/a', { body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}', headers: { 'Content-Type': 'application/json' } });
    expect([r.status, json(r).message]).toEqual([400, 'the name of the object (b) does not match the name on the URL (a)']);
  });

  test('a resourceVersion past uint64 is a 400 at once (not a wait for the store to reach it)', async () => {
    const r = await send('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=18446744073709551616');
    expect([r.status, json(r).message]).toEqual([400, 'resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range']);
  });
});

describe('bodies', () => {
  const tooLarge = { kind: 'Status', code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' };

  test('kubectl create of a 4 MiB config map prints the 413, not a connection reset', () => {
    const file = join(dir, 'big.txt');
    writeFileSync(file, 'x'.repeat(4 << 20));
    const r = kubectl(adminKubeconfig, ['create', 'configmap', 'big', '-n', 'default', `--from-file=big=${file}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Request entity too large: limit is 3145728');
    expect(r.stderr).not.toContain('connection reset');
  });

  test.each<[string, string, string, string | undefined]>([
    ['a 4 MiB POST with its length', 'POST', '/api/v1/namespaces/default/configmaps', 'length'],
    ['a 50 MiB chunked POST', 'POST', '/api/v1/namespaces/default/configmaps', undefined],
    ['a 50 MiB chunked merge PATCH', 'PATCH', '/api/v1/namespaces/default/configmaps/present', undefined],
  ])('%s gets the 413 Status and the server reads no further', async (_name, method, path, framing) => {
    const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const size = framing === 'length' ? 4 << 20 : 50 << 20;
    let sent = 0;
    const chunk = Buffer.alloc(64 << 10, 0x20);
    const body = function* () {
      for (; sent < size; sent += chunk.length) yield chunk;
    };
    const r = await send(method, path, { body, headers: { 'Content-Type': contentType, ...(framing === 'length' ? { 'Content-Length': String(size) } : {}) } });
    expect(r.error).toBeUndefined();
    expect(json(r)).toMatchObject(tooLarge);
    // The answer came while the body was still being sent: the server did not read it to its end first.
    expect(sent).toBeLessThan(size);
  });

  test('a body nested 100,000 levels deep is a 400, on create and on every patch type, and the object is unchanged', async () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const cases: Array<[string, string, string, string]> = [
      ['POST', '/api/v1/namespaces/default/configmaps', 'application/json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${deep(100_000)}}`],
      ['PATCH', '/api/v1/namespaces/default/configmaps/present', 'application/merge-patch+json', `{"data":${deep(100_000)}}`],
      ['PATCH', '/api/v1/namespaces/default/configmaps/present', 'application/strategic-merge-patch+json', `{"data":${deep(100_000)}}`],
      ['PATCH', '/api/v1/namespaces/default/configmaps/present', 'application/json-patch+json', `[{"op":"add","path":"/data/x","value":${deep(100_000)}}]`],
    ];
    for (const [method, path, type, body] of cases) {
      const r = await send(method, path, { body, headers: { 'Content-Type': type } });
      expect([type, r.status, json(r).message]).toEqual([type, 400, expect.stringMatching(/exceeded max depth/)]);
    }
    const get = kubectl(adminKubeconfig, ['get', 'configmap', 'present', '-n', 'default', '-o', 'jsonpath={.data}']);
    expect(get.stdout).toBe('{"k":"v"}');
  });

  test('a YAML body creates the object; malformed YAML is a 400', async () => {
    const yaml = { 'Content-Type': 'application/yaml' };
    const r = await send('POST', '/api/v1/namespaces/default/configmaps', { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  greeting: hello\n', headers: yaml });
    expect(r.status).toBe(201);
    expect(kubectl(adminKubeconfig, ['get', 'configmap', 'from-yaml', '-n', 'default', '-o', 'jsonpath={.data.greeting}']).stdout).toBe('hello');
    const broken = await send('POST', '/api/v1/namespaces/default/configmaps', { body: 'metadata: {name: [x\n', headers: yaml });
    expect([broken.status, json(broken).reason]).toEqual([400, 'BadRequest']);
  });
});
