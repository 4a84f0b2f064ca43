// The volume step's pieces: AtomicWriter's layout, the token refresh rule (injected clock), payloads, environment
// resolution and the errors a pod waits with.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Pod } from '../pods/api-types';
import type { ApiObjects, TokenRequestResult } from './api-objects';
import { DATA_DIR, validatePayloadPath, writeAtomically, type Payload } from './atomic-writer';
import { resolveEnv } from './env';
import { downwardFieldValue, formatMap, keysPayload, secretMissingKey } from './payloads';
import { TokenManager, requiresRefresh } from './token-manager';
import { ApiVolumeStep } from './volume-step';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clet-volumes-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const payload = (entries: Record<string, string>, mode = 0o644): Payload => new Map(Object.entries(entries).map(([k, v]) => [k, { data: Buffer.from(v), mode }]));

describe('writeAtomically', () => {
  test('a version directory, the ..data link and one link per top-level name', async () => {
    expect(await writeAtomically(dir, payload({ token: 't', 'sub/a.txt': 'a' }))).toBe(true);
    const version = fs.readlinkSync(path.join(dir, DATA_DIR));
    expect(version).toMatch(/^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\d{10}$/);
    expect(fs.readdirSync(dir).sort()).toEqual([DATA_DIR, version, 'sub', 'token'].sort());
    expect(fs.readlinkSync(path.join(dir, 'token'))).toBe('..data/token');
    expect(fs.readlinkSync(path.join(dir, 'sub'))).toBe('..data/sub');
    expect(fs.readFileSync(path.join(dir, 'sub', 'a.txt'), 'utf8')).toBe('a');
    expect(fs.statSync(path.join(dir, version)).mode & 0o777).toBe(0o755);
  });

  test('an unchanged payload writes nothing; a change switches versions and drops names that left', async () => {
    await writeAtomically(dir, payload({ a: '1', b: '2' }));
    const first = fs.readlinkSync(path.join(dir, DATA_DIR));
    expect(await writeAtomically(dir, payload({ a: '1', b: '2' }))).toBe(false);
    expect(await writeAtomically(dir, payload({ a: '1', b: '2' }, 0o400))).toBe(true);
    expect(await writeAtomically(dir, payload({ a: '3' }, 0o400))).toBe(true);
    const second = fs.readlinkSync(path.join(dir, DATA_DIR));
    expect(second).not.toBe(first);
    expect(fs.readdirSync(dir).sort()).toEqual([DATA_DIR, second, 'a'].sort());
    expect(fs.readFileSync(path.join(dir, 'a'), 'utf8')).toBe('3');
    expect(fs.statSync(path.join(dir, 'a')).mode & 0o777).toBe(0o400);
  });

  test.each([['../x', "invalid path: must not contain '..': ../x"], ['/abs', 'invalid path: must be relative path: /abs'], ['..x', "invalid path: must not start with '..': ..x"], ['ok/x', null]])('path %s', (p, err) => {
    expect(validatePayloadPath(p)).toBe(err);
  });
});

describe('requiresRefresh (upstream: past 80% of the TTL, or older than 24 h, less the jitter)', () => {
  const T0 = Date.parse('2026-01-01T00:00:00Z');
  const tr = (seconds: number): TokenRequestResult => ({ spec: { expirationSeconds: seconds }, status: { token: 't', expirationTimestamp: new Date(T0 + seconds * 1000).toISOString() } });
  test.each([
    ['fresh', 3600, 0, 0, false],
    ['at 79% of an hour', 3600, 0.79 * 3600, 0, false],
    ['past 80% of an hour', 3600, 0.8 * 3600 + 1, 0, true],
    ['79% with a 10 s jitter reaching 80%', 3600, 0.8 * 3600 - 9, 10_000, true],
    ['a year-long token at 23 h', 365 * 86400, 23 * 3600, 0, false],
    ['a year-long token past 24 h', 365 * 86400, 24 * 3600 + 1, 0, true],
    ['no expirationSeconds: never', undefined, 10 * 86400, 0, false],
  ] as Array<[string, number | undefined, number, number, boolean]>)('%s', (_, seconds, ageSeconds, jitter, want) => {
    const t = seconds === undefined ? { ...tr(3600), spec: {} } : tr(seconds);
    expect(requiresRefresh(t, T0 + ageSeconds * 1000, jitter)).toBe(want);
  });

  test('the manager re-uses a token until the rule says refresh', async () => {
    let now = T0;
    let n = 0;
    const api = { requestToken: async () => ({ ...tr(3600), status: { token: `t${++n}`, expirationTimestamp: new Date(now + 3600_000).toISOString() } }) } as unknown as ApiObjects;
    const m = new TokenManager(api, { now: () => now }, () => 0);
    expect(await m.token('uid/v/token/', 'ns', 'sa', {})).toBe('t1');
    now += 2000 * 1000;
    expect(await m.token('uid/v/token/', 'ns', 'sa', {})).toBe('t1');
    now += 900 * 1000;
    expect(await m.token('uid/v/token/', 'ns', 'sa', {})).toBe('t2');
  });

  test('a forgotten pod\'s tokens are requested again; other pods keep theirs', async () => {
    let n = 0;
    const api = { requestToken: async () => ({ ...tr(3600), status: { token: `t${++n}`, expirationTimestamp: new Date(T0 + 3600_000).toISOString() } }) } as unknown as ApiObjects;
    const m = new TokenManager(api, { now: () => T0 }, () => 0);
    expect([await m.token('a/v/token/', 'ns', 'sa', {}), await m.token('b/v/token/', 'ns', 'sa', {})]).toEqual(['t1', 't2']);
    m.forgetPod('a');
    expect([await m.token('a/v/token/', 'ns', 'sa', {}), await m.token('b/v/token/', 'ns', 'sa', {})]).toEqual(['t3', 't2']);
  });
});

describe('payloads', () => {
  const data = new Map([['a', Buffer.from('1')], ['b', Buffer.from('2')]]);
  test('all keys with the default mode, or the items with their modes', () => {
    expect([...keysPayload(data, undefined, 0o644, false, secretMissingKey)].map(([k, f]) => [k, f.mode])).toEqual([['a', 0o644], ['b', 0o644]]);
    expect([...keysPayload(data, [{ key: 'b', path: 'x/b', mode: 0o400 }], 0o644, false, secretMissingKey)].map(([k, f]) => [k, f.data.toString(), f.mode])).toEqual([['x/b', '2', 0o400]]);
  });
  test('a missing item key fails unless optional', () => {
    expect(() => keysPayload(data, [{ key: 'c', path: 'c' }], 0o644, false, secretMissingKey)).toThrow('references non-existent secret key: c');
    expect(keysPayload(data, [{ key: 'c', path: 'c' }], 0o644, true, secretMissingKey).size).toBe(0);
  });
  test('downward API fields', () => {
    const pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u', labels: { b: '2', a: 'x"y' } }, spec: { containers: [] } } as Pod;
    expect(downwardFieldValue(pod, 'metadata.labels')).toBe('a="x\\"y"\nb="2"');
    expect(downwardFieldValue(pod, "metadata.labels['b']")).toBe('2');
    expect(formatMap(undefined)).toBe('');
    expect(() => downwardFieldValue(pod, 'spec.nodeName')).toThrow('unsupported fieldPath: spec.nodeName');
  });
});

const objects = (secrets: Record<string, Record<string, string>>, configMaps: Record<string, Record<string, string>> = {}): ApiObjects => ({
  secret: async (_ns, name) => (secrets[name] ? { data: Object.fromEntries(Object.entries(secrets[name]).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) } : undefined),
  configMap: async (_ns, name) => (configMaps[name] ? { data: configMaps[name] } : undefined),
  requestToken: async () => ({ spec: { expirationSeconds: 3600 }, status: { token: 'tok', expirationTimestamp: new Date(Date.now() + 3600_000).toISOString() } }),
});

describe('resolveEnv', () => {
  const pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [] } } as unknown as Pod;
  test.each([
    ['a missing secret', { env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }, 'secret "s" not found'],
    ['a missing key', { env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'c', key: 'nope' } } }] }, "couldn't find key nope in ConfigMap ns/c"],
    ['a missing envFrom config map', { envFrom: [{ configMapRef: { name: 'gone' } }] }, 'configmap "gone" not found'],
  ])('%s fails the container', async (_, c, message) => {
    await expect(resolveEnv(objects({}, { c: { k: 'v' } }), pod, { name: 'c', ...c } as never)).rejects.toThrow(message);
  });

  test('optional references to missing things are skipped; envFrom skips and reports invalid names', async () => {
    const r = await resolveEnv(objects({ s: { '1x': 'a', ok: 'b' } }), pod, {
      name: 'c',
      env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'gone', key: 'k', optional: true } } }],
      envFrom: [{ secretRef: { name: 's' } }, { configMapRef: { name: 'gone', optional: true } }],
    } as never);
    expect(r.fromSources).toEqual([['ok', 'b']]);
    expect(r.refs.size).toBe(0);
    expect(r.warnings).toEqual([{ reason: 'InvalidEnvironmentVariableNames', message: 'Keys [1x] from the EnvFrom secret ns/s were skipped since they are considered invalid environment variable names.' }]);
  });
});

describe('ApiVolumeStep.setUp', () => {
  const pod = (volumes: unknown[]) => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [], volumes } }) as unknown as Pod;
  test.each([
    ['a missing secret', [{ name: 'v', secret: { secretName: 's' } }], 'MountVolume.SetUp failed for volume "v" : secret "s" not found'],
    ['an unsupported kind', [{ name: 'd', persistentVolumeClaim: { claimName: 'x' } }], 'MountVolume.SetUp failed for volume "d" : volume type "persistentVolumeClaim" is not supported by this node agent (supported: hostPath, emptyDir, secret, configMap, projected, downwardAPI)'],
    ['every failing projected source, aggregated', [{ name: 'pv', projected: { sources: [{ secret: { name: 'a' } }, { configMap: { name: 'b' } }] } }], 'MountVolume.SetUp failed for volume "pv" : [secret "a" not found, configmap "b" not found]'],
    ['no API server (standalone)', [{ name: 'v', secret: { secretName: 's' } }], 'MountVolume.SetUp failed for volume "v" : no API server connection (standalone mode): API objects cannot be read'],
  ])('%s', async (name, volumes, message) => {
    const step = new ApiVolumeStep(name.startsWith('no API') ? undefined : objects({}));
    await expect(step.setUp(pod(volumes), dir)).rejects.toThrow(message);
  });

  test('a projected volume with token, config map and namespace; an optional missing secret volume is empty', async () => {
    const step = new ApiVolumeStep(objects({}, { 'kube-root-ca.crt': { 'ca.crt': 'CA' } }));
    const dirs = await step.setUp(pod([
      { name: 'kube-api-access-x', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }, { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } }] } },
      { name: 'maybe', secret: { secretName: 'absent', optional: true } },
      { name: 'scratch', emptyDir: {} },
    ]), dir);
    const p = dirs.get('kube-api-access-x')!;
    expect(p).toBe(path.join(dir, 'volumes', 'kubernetes.io~projected', 'kube-api-access-x'));
    expect(['token', 'ca.crt', 'namespace'].map((f) => fs.readFileSync(path.join(p, f), 'utf8'))).toEqual(['tok', 'CA', 'ns']);
    expect(fs.readdirSync(dirs.get('maybe')!).filter((f) => !f.startsWith('..'))).toEqual([]);
    expect(dirs.has('scratch')).toBe(false);
  });
});
