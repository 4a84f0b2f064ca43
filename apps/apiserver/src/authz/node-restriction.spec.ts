// NodeRestriction's token rule: what a node's TokenRequest must be bound to, and for which audiences (upstream's
// admitServiceAccount with ServiceAccountNodeAudienceRestriction); and its mirror pod rule: a pod a node creates
// names no other API object, by the same reference walk the Node authorizer's graph follows.
import { ApiError, type KubeObject } from '@cl/apimachinery';
import { userInfo, type UserInfo } from '@cl/auth';
import type { AdmissionAttributes, ResourceStore } from '@cl/registry';
import { NodeAuthorizer } from './node-authorizer';
import { admitNodeTokenRequest, nodeRestriction, type BoundObjectReference, type NodeRequestAuthorizer } from './node-restriction';

const node = (name: string): UserInfo => ({ username: `system:node:${name}`, uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} });
const alice: UserInfo = { username: 'alice', uid: '', groups: ['system:authenticated'], extra: {} };
const pods: Record<string, KubeObject> = {
  mine: {
    metadata: { name: 'mine', namespace: 'ns', uid: 'mine-uid' },
    spec: {
      nodeName: 'n1',
      volumes: [
        { name: 'kube-api-access-x', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'kube-root-ca.crt' } }] } },
        { name: 'vault-token', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'vault' } }] } },
      ],
    },
  },
  bare: { metadata: { name: 'bare', namespace: 'ns', uid: 'bare-uid' }, spec: { nodeName: 'n1', volumes: [{ name: 'data', emptyDir: {} }] } },
  theirs: { metadata: { name: 'theirs', namespace: 'ns', uid: 'theirs-uid' }, spec: { nodeName: 'n2' } },
};
const getPod = async (_ns: string, name: string) => pods[name];
const mine: BoundObjectReference = { apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'mine-uid' };

test.each<[string, UserInfo, BoundObjectReference | undefined, number | null, string]>([
  ['a node, bound to its own pod', node('n1'), mine, null, ''],
  ['not a node: no restriction', alice, undefined, null, ''],
  ['a node, no binding', node('n1'), undefined, 403, 'node requested token not bound to a pod'],
  ['a node, bound to a secret', node('n1'), { ...mine, kind: 'Secret' }, 403, 'node requested token not bound to a pod'],
  ['a node, bound without apiVersion v1', node('n1'), { ...mine, apiVersion: '' }, 403, 'node requested token not bound to a pod'],
  ['a node, a pod binding without a uid', node('n1'), { ...mine, uid: '' }, 403, 'node requested token with a pod binding without a uid'],
  ['a node, a pod that does not exist', node('n1'), { ...mine, name: 'gone' }, 404, 'pods "gone" not found'],
  ['a node, a stale uid', node('n1'), { ...mine, uid: 'stale' }, 403, 'the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated'],
  ['a node, another node\'s pod', node('n1'), { apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: 'theirs-uid' }, 403, 'node requested token bound to a pod scheduled on a different node'],
])('%s', async (_what, user, ref, code, message) => {
  const outcome = await admitNodeTokenRequest(user, { namespace: 'ns', serviceAccount: 'default', boundObjectRef: ref }, getPod, async () => false).then(() => null, (e: unknown) => e);
  if (code === null) return expect(outcome).toBeNull();
  expect(outcome).toBeInstanceOf(ApiError);
  expect((outcome as ApiError).status.code).toBe(code);
  expect((outcome as ApiError).status.message).toContain(message);
});

describe('audiences (ServiceAccountNodeAudienceRestriction)', () => {
  const bare: BoundObjectReference = { apiVersion: 'v1', kind: 'Pod', name: 'bare', uid: 'bare-uid' };
  // The authorizer grants n1 the audience "granted" for the service account "default" only.
  const asked: Parameters<NodeRequestAuthorizer>[0][] = [];
  const authorize: NodeRequestAuthorizer = async (a) => {
    asked.push(a);
    return a.resource === 'granted' && a.name === 'default';
  };
  const refusal = (audience: string) => `audience "${audience}" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience`;

  test.each<[string, BoundObjectReference, string, string[] | undefined, string | null]>([
    ['none asked, the pod\'s default projected token names none', mine, 'default', undefined, null],
    ['an audience a projected source of the pod names', mine, 'default', ['vault'], null],
    ['an audience no source names', mine, 'default', ['elsewhere'], refusal('elsewhere')],
    ['none asked, a pod without a projected token', bare, 'default', [], refusal('')],
    ['an audience the node was granted', bare, 'default', ['granted'], null],
    ['the granted audience for another service account', bare, 'builder', ['granted'], refusal('granted')],
    ['two audiences, even both named by the pod', mine, 'default', ['vault', ''], 'node may only request 0 or 1 audiences'],
  ])('%s', async (_what, ref, serviceAccount, audiences, message) => {
    const outcome = await admitNodeTokenRequest(node('n1'), { namespace: 'ns', serviceAccount, boundObjectRef: ref, audiences }, getPod, authorize).then(() => null, (e: unknown) => e);
    if (message === null) return expect(outcome).toBeNull();
    expect(outcome).toBeInstanceOf(ApiError);
    expect((outcome as ApiError).status.code).toBe(403);
    expect((outcome as ApiError).status.message).toBe(`serviceaccounts "${serviceAccount}" is forbidden: ${message}`);
  });

  test('the authorizer is asked with the audience as resource and the service account as name', async () => {
    asked.length = 0;
    await admitNodeTokenRequest(node('n1'), { namespace: 'ns', serviceAccount: 'default', boundObjectRef: bare, audiences: ['granted'] }, getPod, authorize);
    expect(asked).toEqual([{ user: node('n1'), verb: 'request-serviceaccounts-token-audience', namespace: 'ns', apiGroup: '', resource: 'granted', name: 'default' }]);
  });
});

describe('mirror pods a node creates refer to no other API object', () => {
  const plugin = nodeRestriction();
  const create = (pod: KubeObject, user: UserInfo = node('node1')): AdmissionAttributes => ({
    operation: 'CREATE', resource: { group: '', resource: 'pods' }, kind: 'Pod', subresource: '', namespace: 'kube-system', name: pod.metadata?.name ?? '',
    object: pod, oldObject: null, dryRun: false, user,
  });
  const mirror = (spec: Record<string, unknown>): KubeObject => ({
    metadata: { name: 'static-node1', namespace: 'kube-system', annotations: { 'kubernetes.io/config.mirror': 'hash' } },
    spec: { nodeName: 'node1', containers: [{ name: 'c', image: 'busybox' }], ...spec },
  });
  const container = (more: Record<string, unknown>) => ({ containers: [{ name: 'c', image: 'busybox', ...more }] });
  const volume = (source: Record<string, unknown>) => ({ volumes: [{ name: 'v', ...source }] });
  const projected = (...sources: unknown[]) => volume({ projected: { sources } });
  const refused = (what: string) => `node "node1" can not create pods that ${what}`;
  const SECRETS = refused('reference secrets');
  const CONFIGMAPS = refused('reference configmaps');
  const PVCS = refused('reference persistentvolumeclaims');
  const ACCOUNT = refused('reference a service account');

  test.each<[string, Record<string, unknown>, string | null]>([
    ['a clean mirror pod (emptyDir, downward API, hostPath)', { volumes: [{ name: 'e', emptyDir: {} }, { name: 'd', downwardAPI: { items: [] } }, { name: 'h', hostPath: { path: '/etc' } }] }, null],
    ['a secret volume', volume({ secret: { secretName: 'ks-secret' } }), SECRETS],
    ['a projected secret', projected({ secret: { name: 'ks-secret' } }), SECRETS],
    ['a volume plugin\'s secretRef (cephfs)', volume({ cephfs: { monitors: ['m'], secretRef: { name: 'ks-secret' } } }), SECRETS],
    ['an azureFile secretName', volume({ azureFile: { secretName: 'ks-secret', shareName: 's' } }), SECRETS],
    ['a CSI nodePublishSecretRef', volume({ csi: { driver: 'd', nodePublishSecretRef: { name: 'ks-secret' } } }), SECRETS],
    ['a configMap volume', volume({ configMap: { name: 'ks-cm' } }), CONFIGMAPS],
    ['a projected configMap', projected({ configMap: { name: 'ks-cm' } }), CONFIGMAPS],
    ['an env secretKeyRef', container({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'ks-secret', key: 'k' } } }] }), SECRETS],
    ['an env configMapKeyRef', container({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'ks-cm', key: 'k' } } }] }), CONFIGMAPS],
    ['envFrom a secret', container({ envFrom: [{ secretRef: { name: 'ks-secret' } }] }), SECRETS],
    ['envFrom a configMap', container({ envFrom: [{ configMapRef: { name: 'ks-cm' } }] }), CONFIGMAPS],
    ['imagePullSecrets', { imagePullSecrets: [{ name: 'ks-pull' }] }, SECRETS],
    ['an init container\'s secret', { initContainers: [{ name: 'i', image: 'busybox', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'ks-secret', key: 'k' } } }] }] }, SECRETS],
    ['an ephemeral container\'s config map', { ephemeralContainers: [{ name: 'e', image: 'busybox', envFrom: [{ configMapRef: { name: 'ks-cm' } }] }] }, CONFIGMAPS],
    ['a clusterTrustBundle projection', projected({ clusterTrustBundle: { signerName: 'example.com/s', path: 'b.pem' } }), refused('reference clustertrustbundles')],
    ['a persistentVolumeClaim volume', volume({ persistentVolumeClaim: { claimName: 'data' } }), PVCS],
    ['an ephemeral volume (a claim template)', volume({ ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'] } } } }), PVCS],
    ['resource claims', { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] }, refused('reference resourceclaims')],
    ['serviceAccountName', { serviceAccountName: 'default' }, ACCOUNT],
    ['the deprecated serviceAccount field', { serviceAccount: 'builder' }, ACCOUNT],
    ['a projected serviceAccountToken', projected({ serviceAccountToken: { path: 'token' } }), ACCOUNT],
    // Upstream's order decides the message when a pod names several kinds.
    ['an account and a secret: the account first', { serviceAccountName: 'x', ...volume({ secret: { secretName: 'ks-secret' } }) }, ACCOUNT],
    ['a config map and a secret: secrets first', { ...container({ envFrom: [{ configMapRef: { name: 'ks-cm' } }] }), imagePullSecrets: [{ name: 'p' }] }, SECRETS],
    ['a claim and a config map: config maps first', { volumes: [{ name: 'a', persistentVolumeClaim: { claimName: 'data' } }, { name: 'b', configMap: { name: 'ks-cm' } }] }, CONFIGMAPS],
    ['a projected token and a secret: upstream\'s secret message, not this server\'s extra row', projected({ serviceAccountToken: { path: 't' } }, { secret: { name: 's' } }), SECRETS],
  ])('%s', (_what, spec, message) => {
    const outcome = (() => {
      try {
        plugin.validate!(create(mirror(spec)));
        return null;
      } catch (e) {
        return e;
      }
    })();
    if (message === null) return expect(outcome).toBeNull();
    expect(outcome).toBeInstanceOf(ApiError);
    expect((outcome as ApiError).status).toMatchObject({ code: 403, reason: 'Forbidden', message: `pods "static-node1" is forbidden: ${message}` });
  });

  test('other users may create mirror pods that reference objects (NodeRestriction restricts nodes only)', () => {
    expect(() => plugin.validate!(create(mirror(volume({ secret: { secretName: 'ks-secret' } })), alice))).not.toThrow();
  });

  // The graph half of the same rule: whatever a mirror pod names (say, created by an administrator), it links its node
  // to nothing, while the same spec in an ordinary pod does link it, by the same walk admission used above.
  test.each<[string, Record<string, unknown>, 'secrets' | 'configmaps' | 'persistentvolumeclaims', string]>([
    ['a secret volume', volume({ secret: { secretName: 'ks-secret' } }), 'secrets', 'ks-secret'],
    ['a cephfs secretRef', volume({ cephfs: { monitors: ['m'], secretRef: { name: 'ks-secret' } } }), 'secrets', 'ks-secret'],
    ['an ephemeral container\'s config map', { ephemeralContainers: [{ name: 'e', envFrom: [{ configMapRef: { name: 'ks-cm' } }] }] }, 'configmaps', 'ks-cm'],
    ['an ephemeral volume\'s claim <pod>-<volume>', volume({ ephemeral: { volumeClaimTemplate: { spec: {} } } }), 'persistentvolumeclaims', 'static-node1-v'],
  ])('the Node authorizer: %s in a mirror pod grants nothing, in an ordinary pod it does', (_what, spec, resource, name) => {
    const authorizeWith = (pod: KubeObject) => {
      const store = { key: (ns: string, n: string) => `/pods/${ns}/${n}`, cache: { list: () => ({ items: [{ key: '/pods/kube-system/static-node1', object: pod, revision: 1 }], revision: 1 }) } } as unknown as ResourceStore;
      const authz = new NodeAuthorizer();
      authz.attach(store);
      const user = userInfo({ username: 'system:node:node1', groups: ['system:nodes'] });
      return authz.authorize({ user, verb: 'get', isResourceRequest: true, path: '', namespace: 'kube-system', apiGroup: '', apiVersion: 'v1', resource, subresource: '', name }).decision;
    };
    const asMirror = mirror(spec);
    const ordinary = { ...asMirror, metadata: { ...asMirror.metadata, annotations: {} } };
    expect(authorizeWith(ordinary)).toBe('Allow');
    expect(authorizeWith(asMirror)).toBe('NoOpinion');
  });
});
