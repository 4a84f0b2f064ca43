// imagePullSecrets as credentials: the two secret types and their `auth` field, the secrets that add nothing
// or fail the pull, the order a pull tries credentials in (secrets by key specificity, then the plugins'),
// and how the pod's secrets are read (missing ones reported once, static pods never read).
import type { CriClient, PodSandboxConfig } from '@cl/cri';
import type { Pod } from '../pods/api-types';
import { ImagePuller } from '../pods/image-puller';
import { podPullSecrets, pullSecretNames } from '../pods/pull-secrets';
import { decodeRegistryEntry, pullCredentials, registryAuthFromSecret, type PullSecret } from './pull-secrets';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const dockerconfigjson = (auths: unknown): PullSecret => ({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) } });
const dockercfg = (map: unknown): PullSecret => ({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64(JSON.stringify(map)) } });

describe('decodeRegistryEntry', () => {
  test.each([
    ['username and password', { username: 'u', password: 'p' }, { username: 'u', password: 'p' }],
    ['auth replaces them', { username: 'x', password: 'y', auth: b64('alice:s3:cret') }, { username: 'alice', password: 's3:cret' }],
    ['empty auth is ignored', { username: 'u', password: 'p', auth: '' }, { username: 'u', password: 'p' }],
    ['email only', { email: 'a@b.c' }, { username: '', password: '' }],
    ['empty password in auth', { auth: b64('bob:') }, { username: 'bob', password: '' }],
  ])('%s', (_name, entry, want) => {
    expect(decodeRegistryEntry(entry)).toEqual(want);
  });

  test.each([
    ['auth without a colon', { auth: b64('nocolon') }, 'unable to parse auth field, must be formatted as base64(username:password)'],
    ['auth not base64', { auth: 'not base64!' }, 'illegal base64 data in auth field'],
  ])('%s fails', (_name, entry, msg) => {
    expect(() => decodeRegistryEntry(entry)).toThrow(msg);
  });
});

describe('registryAuthFromSecret', () => {
  test.each<[string, PullSecret, unknown]>([
    ['dockerconfigjson', dockerconfigjson({ 'reg.io': { auth: b64('a:b') } }), { 'reg.io': { username: 'a', password: 'b' } }],
    ['dockercfg', dockercfg({ 'https://reg.io/v1/': { username: 'c', password: 'd' } }), { 'https://reg.io/v1/': { username: 'c', password: 'd' } }],
    ['dockerconfigjson without auths', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{}') } }, {}],
    ['an Opaque secret with the key adds nothing', { type: 'Opaque', data: { '.dockerconfigjson': b64('{"auths":{}}') } }, null],
    ['the type without its key adds nothing', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockercfg': b64('{}') } }, null],
    ['an empty key adds nothing', { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': '' } }, null],
    ['no data', { type: 'kubernetes.io/dockercfg' }, null],
  ])('%s', (_name, secret, want) => {
    expect(registryAuthFromSecret(secret)).toEqual(want);
  });

  test.each<[string, PullSecret, string | RegExp]>([
    ['JSON that does not parse', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{not json') } }, /JSON/],
    ['an auth field that does not split', dockerconfigjson({ 'reg.io': { auth: b64('x') } }), 'unable to parse auth field'],
    ['a dockercfg that is a list', dockercfg([1]), '.dockercfg is not a JSON object'],
  ])('%s fails the pull', (_name, secret, msg) => {
    expect(() => registryAuthFromSecret(secret)).toThrow(msg);
  });
});

describe('pullCredentials', () => {
  const plugins = { lookup: async (image: string) => (image.startsWith('reg.io/') ? [{ username: 'plugin', password: 'p' }] : []) };
  const cred = (username: string) => ({ username, password: 'p' });
  test.each<[string, PullSecret[], string, string[]]>([
    ['no secrets: the plugins only', [], 'reg.io/team/app:v1', ['plugin']],
    ['secrets first, then the plugins', [dockerconfigjson({ 'reg.io': cred('secret') })], 'reg.io/team/app:v1', ['secret', 'plugin']],
    ['all matching secrets, most specific key first across secrets',
      [dockerconfigjson({ 'reg.io': cred('host') }), dockercfg({ 'https://reg.io/v2/team': cred('path') })], 'reg.io/team/app', ['path', 'host', 'plugin']],
    ['a secret for another registry does not match', [dockerconfigjson({ 'other.io': cred('other') })], 'reg.io/app', ['plugin']],
    ['globs match one DNS label', [dockerconfigjson({ '*.reg.io': cred('glob'), '*.io': cred('toolong') })], 'eu.reg.io/app', ['glob']],
    ['the port must match', [dockerconfigjson({ 'reg.io:5000': cred('port') })], 'reg.io/app', ['plugin']],
    ['a path prefix must match', [dockerconfigjson({ 'reg.io/team': cred('team') })], 'reg.io/other/app', ['plugin']],
    ['Docker Hub images fall back to the index entry', [dockerconfigjson({ 'https://index.docker.io/v1/': cred('hub') })], 'busybox', ['hub']],
    ['no match anywhere: anonymous', [dockerconfigjson({ 'other.io': cred('other') })], 'elsewhere.io/app', []],
  ])('%s', async (_name, secrets, image, want) => {
    expect((await pullCredentials(secrets, image, plugins)).map((c) => c.username)).toEqual(want);
  });

  test('without plugins the secrets alone', async () => {
    expect(await pullCredentials([dockerconfigjson({ 'reg.io': cred('s') })], 'reg.io/a')).toEqual([cred('s')]);
  });
});

describe('podPullSecrets', () => {
  const pod = (refs: unknown, source = 'api'): Pod => ({
    metadata: { name: 'p', namespace: 'team', uid: 'u1', annotations: { 'kubernetes.io/config.source': source } },
    spec: { containers: [], imagePullSecrets: refs },
  }) as Pod;
  const secret = dockerconfigjson({});

  function run(p: Pod, get?: (ns: string, name: string) => Promise<PullSecret>) {
    const events: string[] = [];
    const logs: string[] = [];
    const asked: string[] = [];
    const getter = get && ((ns: string, name: string) => {
      asked.push(`${ns}/${name}`);
      return get(ns, name);
    });
    return podPullSecrets(p, getter, (e) => logs.push(typeof e === 'string' ? e : `${e.msg} ${e.err}`),
      (_pod, type, reason, message) => events.push(`${type} ${reason} ${message}`)).then((found) => ({ found, events, logs, asked }));
  }

  test('names in order, empty names skipped', () => {
    expect(pullSecretNames(pod([{ name: 'a' }, { name: '' }, {}, { name: 'b' }]))).toEqual(['a', 'b']);
    expect(pullSecretNames(pod(undefined))).toEqual([]);
  });

  test('every named secret is read from the pod namespace; the missing ones make one warning', async () => {
    const r = await run(pod([{ name: 'one' }, { name: 'gone' }, { name: 'two' }, { name: 'lost' }]),
      async (_ns, name) => {
        if (name === 'gone' || name === 'lost') throw new Error(`secrets "${name}" not found`);
        return secret;
      });
    expect(r.asked).toEqual(['team/one', 'team/gone', 'team/two', 'team/lost']);
    expect(r.found).toEqual([secret, secret]);
    expect(r.events).toEqual(['Warning FailedToRetrieveImagePullSecret Unable to retrieve some image pull secrets (gone, lost); attempting to pull the image may not succeed.']);
    expect(r.logs).toEqual([
      'Unable to retrieve pull secret, the image pull may not succeed. secrets "gone" not found',
      'Unable to retrieve pull secret, the image pull may not succeed. secrets "lost" not found',
    ]);
  });

  test('all found: no event', async () => {
    const r = await run(pod([{ name: 'one' }]), async () => secret);
    expect(r.events).toEqual([]);
    expect(r.found).toEqual([secret]);
  });

  test.each([
    ['a static pod in API-server mode is never read', 'file', true, 'static pods cannot reference secrets'],
    ['a static pod in standalone mode', 'file', false, 'static pods cannot reference secrets'],
    ['no API client', 'api', false, 'no API server connection (standalone mode)'],
  ])('%s: reported as unretrievable', async (_name, source, withClient, err) => {
    const r = await run(pod([{ name: 'cred' }], source), withClient ? async () => secret : undefined);
    expect(r.asked).toEqual([]);
    expect(r.found).toEqual([]);
    expect(r.logs).toEqual([`Unable to retrieve pull secret, the image pull may not succeed. ${err}`]);
    expect(r.events).toEqual(['Warning FailedToRetrieveImagePullSecret Unable to retrieve some image pull secrets (cred); attempting to pull the image may not succeed.']);
  });
});

describe('ImagePuller with pull secrets', () => {
  const pod = { metadata: { uid: 'u', name: 'p', namespace: 'team', annotations: { 'kubernetes.io/config.source': 'api' } },
    spec: { containers: [], imagePullSecrets: [{ name: 'a' }, { name: 'b' }] } } as unknown as Pod;
  const secrets: Record<string, PullSecret> = {
    a: dockerconfigjson({ 'reg.io': { username: 'host', password: 'x' } }),
    b: dockercfg({ 'reg.io/team': { username: 'team', password: 'y' } }),
  };
  const plugins = { lookup: async () => [{ username: 'plugin', password: 'z' }] };

  /** The usernames PullImage was called with (null: anonymous), the first `failing` of them failing. */
  async function pulls(failing: number, get = async (_ns: string, name: string) => secrets[name]) {
    const seen: Array<string | null> = [];
    const cri = {
      imageStatus: async () => null,
      pullImage: async (_img: unknown, auth?: { username: string }) => {
        seen.push(auth ? auth.username : null);
        if (seen.length <= failing) throw new Error(`denied ${seen.length}`);
        return 'sha256:img';
      },
    };
    const puller = new ImagePuller(cri as unknown as CriClient, { serialize: false, qps: 0, burst: 0, credentials: plugins, secrets: get }, () => undefined);
    const result = await puller.ensureImage(pod, { name: 'c', image: 'reg.io/team/app:v1' }, {} as PodSandboxConfig)
      .catch((e: Error) => e.message);
    return { seen, result };
  }

  test.each([
    ['the first credential works', 0, ['team'], 'sha256:img'],
    ['each credential in turn until one works: secrets (most specific first), then plugins', 2, ['team', 'host', 'plugin'], 'sha256:img'],
    ['none works: the errors of all', 3, ['team', 'host', 'plugin'], 'Failed to pull image "reg.io/team/app:v1": [denied 1, denied 2, denied 3]'],
  ])('%s', async (_name, failing, want, result) => {
    expect(await pulls(failing)).toEqual({ seen: want, result });
  });

  test('a missing secret is reported before the pull starts, which goes on with the others', async () => {
    const reasons: string[] = [];
    const auths: string[] = [];
    const cri = { imageStatus: async () => null, pullImage: async (_i: unknown, auth?: { username: string }) => (auths.push(auth?.username ?? ''), 'sha256:img') };
    const get = async (_ns: string, name: string) => {
      if (name === 'a') throw new Error('secrets "a" not found');
      return secrets[name];
    };
    const puller = new ImagePuller(cri as unknown as CriClient, { serialize: true, qps: 0, burst: 0, secrets: get }, () => undefined,
      (_pod, _type, reason) => reasons.push(reason));
    await puller.ensureImage(pod, { name: 'c', image: 'reg.io/team/app:v1' }, {} as PodSandboxConfig);
    expect(reasons).toEqual(['FailedToRetrieveImagePullSecret', 'Pulling', 'Pulled']);
    expect(auths).toEqual(['team']);
  });

  test('a secret that does not decode fails the pull without calling the runtime', async () => {
    const bad = async () => ({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{"reg.io":{"auth":"eA=="}}}') } });
    expect(await pulls(0, bad)).toEqual({ seen: [], result: expect.stringContaining('unable to parse auth field') });
  });
});
