// The ServiceAccount admission plugin: defaulting, the kube-api-access volume and mounts, and the automount rules.
import type { KubeObject } from '@cl/apimachinery';
import type { ResourceStore } from '../resource-store';
import { apiAccessVolume, apiAccessVolumeName, mountServiceAccountToken, serviceAccountAdmission, shouldAutomount, SERVICE_ACCOUNT_MOUNT_PATH } from './service-account';

const MOUNT = { name: 'kube-api-access-abcde', readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH };

function fakeStore(accounts: Record<string, KubeObject>): ResourceStore {
  return {
    key: (ns: string, name: string) => `${ns}/${name}`,
    cache: { get: (k: string) => (accounts[k] ? { key: k, object: accounts[k], revision: 1 } : undefined) },
    get: async (ns: string, name: string) => {
      const o = accounts[`${ns}/${name}`];
      if (!o) throw new Error('not found');
      return o;
    },
  } as unknown as ResourceStore;
}

const attrs = (object: KubeObject) => ({
  operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'pods' }, subresource: '', namespace: 'ns', name: 'p', object,
}) as never;

describe('mountServiceAccountToken', () => {
  const name = () => 'kube-api-access-abcde';
  test.each([
    ['every init and regular container gets the mount, the pod one volume',
      { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }, { name: 'b', volumeMounts: [{ name: 'x', mountPath: '/x' }] }] },
      { volumes: [apiAccessVolume('kube-api-access-abcde')], initContainers: [{ name: 'i', volumeMounts: [MOUNT] }], containers: [{ name: 'a', volumeMounts: [MOUNT] }, { name: 'b', volumeMounts: [{ name: 'x', mountPath: '/x' }, MOUNT] }] }],
    ['a container that mounts something at the path keeps it; no container needs it: no volume',
      { containers: [{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: SERVICE_ACCOUNT_MOUNT_PATH }] }] },
      { containers: [{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: SERVICE_ACCOUNT_MOUNT_PATH }] }] }],
    ['an existing kube-api-access volume is reused',
      { volumes: [{ name: 'kube-api-access-zzzzz' }], containers: [{ name: 'a' }] },
      { volumes: [{ name: 'kube-api-access-zzzzz' }], containers: [{ name: 'a', volumeMounts: [{ ...MOUNT, name: 'kube-api-access-zzzzz' }] }] }],
  ])('%s', (_, spec, want) => {
    mountServiceAccountToken(spec as never, name);
    expect(spec).toEqual(want);
  });

  test('the volume is upstream\'s projected volume', () => {
    expect(apiAccessVolume('kube-api-access-abcde')).toEqual({
      name: 'kube-api-access-abcde',
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    });
  });

  test('generated names use upstream\'s alphabet', () => {
    expect(apiAccessVolumeName()).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(apiAccessVolumeName(() => 0)).toBe('kube-api-access-bbbbb');
  });
});

test.each([
  ['default', {}, undefined, true],
  ['the account says no', {}, false, false],
  ['the pod says yes over the account', { automountServiceAccountToken: true }, false, true],
  ['the pod says no', { automountServiceAccountToken: false }, true, false],
])('shouldAutomount: %s', (_, pod, sa, want) => {
  expect(shouldAutomount(pod, { metadata: {}, ...(sa === undefined ? {} : { automountServiceAccountToken: sa }) })).toBe(want);
});

describe('serviceAccountAdmission', () => {
  const plugin = serviceAccountAdmission(fakeStore({ 'ns/default': { metadata: { name: 'default' } }, 'ns/quiet': { metadata: { name: 'quiet' }, automountServiceAccountToken: false } }));

  test('defaults the account and mounts the token', async () => {
    const pod = { metadata: {}, spec: { containers: [{ name: 'a' }] } } as KubeObject & { spec: { serviceAccountName?: string; volumes?: Array<{ name: string }> } };
    await plugin.mutate!(attrs(pod));
    expect(pod.spec.serviceAccountName).toBe('default');
    expect(pod.spec.volumes?.[0].name).toMatch(/^kube-api-access-/);
  });

  test('an account with automountServiceAccountToken false gets no volume', async () => {
    const pod = { metadata: {}, spec: { serviceAccountName: 'quiet', containers: [{ name: 'a' }] } };
    await plugin.mutate!(attrs(pod));
    expect(pod.spec).toEqual({ serviceAccountName: 'quiet', containers: [{ name: 'a' }] });
  });

  test('mirror pods are given neither an account nor a volume', async () => {
    const pod = { metadata: { annotations: { 'kubernetes.io/config.mirror': 'h' } }, spec: { containers: [{ name: 'a' }] } };
    await plugin.mutate!(attrs(pod));
    await plugin.validate!(attrs(pod));
    expect(pod.spec).toEqual({ containers: [{ name: 'a' }] });
  });

  describe('mirror pods may not reference an account, a secret or a projected token', () => {
    const mirror = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'p', annotations: { 'kubernetes.io/config.mirror': '' } }, spec: { containers: [{ name: 'a' }], ...spec } });
    const c = (more: Record<string, unknown>) => ({ containers: [{ name: 'a', ...more }] });
    const ACCOUNT = 'a mirror pod may not reference service accounts';
    const SECRETS = 'a mirror pod may not reference secrets';
    const TOKEN = 'a mirror pod may not use ServiceAccountToken volume projections';

    test.each<[string, Record<string, unknown>, string | null]>([
      ['no references (an empty annotation value still marks a mirror pod)', {}, null],
      ['a config map (not this plugin\'s rule)', { volumes: [{ name: 'v', configMap: { name: 'cm' } }] }, null],
      ['serviceAccountName', { serviceAccountName: 'default' }, ACCOUNT],
      ['the deprecated serviceAccount field', { serviceAccount: 'builder' }, ACCOUNT],
      ['a secret volume', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }, SECRETS],
      ['a projected secret', { volumes: [{ name: 'v', projected: { sources: [{ secret: { name: 's' } }] } }] }, SECRETS],
      ['a CSI volume\'s node publish secret', { volumes: [{ name: 'v', csi: { driver: 'd', nodePublishSecretRef: { name: 's' } } }] }, SECRETS],
      ['imagePullSecrets', { imagePullSecrets: [{ name: 's' }] }, SECRETS],
      ['an env secretKeyRef', c({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }), SECRETS],
      ['envFrom a secret', c({ envFrom: [{ secretRef: { name: 's' } }] }), SECRETS],
      ['an init container\'s secret', { initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 's' } }] }] }, SECRETS],
      ['an ephemeral container\'s secret', { ephemeralContainers: [{ name: 'e', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }, SECRETS],
      ['a projected service account token', { volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, TOKEN],
      ['an account and a secret: the account is checked first', { serviceAccountName: 'x', volumes: [{ name: 'v', secret: { secretName: 's' } }] }, ACCOUNT],
      ['a secret and a token: the secret is checked first', { volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }, { secret: { name: 's' } }] } }] }, SECRETS],
    ])('%s', async (_, spec, message) => {
      // Refused as early as mutation (upstream's Admit validates mirror pods), and again by validation.
      for (const phase of [plugin.mutate!, plugin.validate!]) {
        const outcome = await Promise.resolve(phase(attrs(mirror(spec)))).then(() => null, (e: unknown) => e);
        if (message === null) expect(outcome).toBeNull();
        else expect(outcome).toMatchObject({ status: { code: 403, reason: 'Forbidden', message: `pods "p" is forbidden: ${message}` } });
      }
    });
  });

  test('a missing account is refused with upstream text', async () => {
    await expect(plugin.validate!(attrs({ metadata: {}, spec: { serviceAccountName: 'ghost', containers: [] } }))).rejects.toThrow(
      'service account ns/ghost was not found, retry after the service account is created',
    );
  });
});
