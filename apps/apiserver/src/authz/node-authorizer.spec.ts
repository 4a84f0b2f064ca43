import { userInfo, type Attributes } from '@cl/auth';
import type { ResourceStore } from '@cl/registry';
import { NodeAuthorizer, podReferences } from './node-authorizer';

describe('podReferences (the simplified node graph edges)', () => {
  const spec = {
    nodeName: 'n1',
    serviceAccountName: 'builder',
    imagePullSecrets: [{ name: 'pull' }],
    volumes: [{ secret: { secretName: 'vol-secret' } }, { configMap: { name: 'vol-cm' } }, { persistentVolumeClaim: { claimName: 'data' } }, { projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }, { secret: { name: 'proj-secret' } }] } }],
    containers: [{ envFrom: [{ secretRef: { name: 'env-secret' } }], env: [{ valueFrom: { configMapKeyRef: { name: 'env-cm' } } }] }],
    initContainers: [{ env: [{ valueFrom: { secretKeyRef: { name: 'init-secret' } } }] }],
  };
  it.each([
    ['secrets', 'pull', true],
    ['secrets', 'vol-secret', true],
    ['secrets', 'proj-secret', true],
    ['secrets', 'env-secret', true],
    ['secrets', 'init-secret', true],
    ['secrets', 'vol-cm', false],
    ['configmaps', 'vol-cm', true],
    ['configmaps', 'kube-root-ca.crt', true],
    ['configmaps', 'env-cm', true],
    ['configmaps', 'other', false],
    ['persistentvolumeclaims', 'data', true],
    ['serviceaccounts', 'builder', true],
    ['serviceaccounts', 'default', false],
  ] as const)('%s %s -> %s', (kind, name, want) => {
    expect(podReferences(spec, kind, name)).toBe(want);
  });
  it('a pod without serviceAccountName runs as default', () => {
    expect(podReferences({}, 'serviceaccounts', 'default')).toBe(true);
  });
});

describe('NodeAuthorizer', () => {
  const pods = [{ key: '/pods/a/web', object: { spec: { nodeName: 'n1', volumes: [{ secret: { secretName: 's1' } }] } }, revision: 1 }];
  const store = { key: (ns: string, name: string) => `/pods/${ns}/${name}`, cache: { list: (prefix: string) => ({ items: pods.filter((p) => p.key.startsWith(prefix)), revision: 1 }) } } as unknown as ResourceStore;
  const authz = new NodeAuthorizer();
  authz.attach(store);
  const node = (name: string) => userInfo({ username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });
  const req = (user: Attributes['user'], a: Partial<Attributes>): Attributes => ({ user, verb: 'get', isResourceRequest: true, path: '', namespace: 'a', apiGroup: '', apiVersion: 'v1', resource: 'secrets', subresource: '', name: 's1', ...a });

  it.each([
    ['its pod\'s secret', node('n1'), {}, 'Allow', ''],
    ['another node', node('n2'), {}, 'NoOpinion', "no relationship found between node 'n2' and this object"],
    ['an unreferenced secret', node('n1'), { name: 's2' }, 'NoOpinion', "no relationship found between node 'n1' and this object"],
    ['listing secrets', node('n1'), { verb: 'list', name: '' }, 'NoOpinion', 'No Object name found'],
    ['watching one secret by name (metadata.name field selector)', node('n1'), { verb: 'watch' }, 'Allow', ''],
    ['deleting a secret', node('n1'), { verb: 'delete' }, 'NoOpinion', 'can only read resources of this type'],
    ['listing claims', node('n1'), { verb: 'list', resource: 'persistentvolumeclaims', name: 'data' }, 'NoOpinion', 'can only get individual resources of this type'],
    ['the node rules: patch its node status', node('n1'), { verb: 'patch', namespace: '', resource: 'nodes', subresource: 'status', name: 'n1' }, 'Allow', ''],
    ['outside the node rules', node('n1'), { verb: 'delete', namespace: '', resource: 'namespaces', name: 'a' }, 'NoOpinion', ''],
    ['not a node (no system:nodes group)', userInfo({ username: 'system:node:n1' }), {}, 'NoOpinion', ''],
  ] as const)('%s', (_n, user, a, decision, reason) => {
    expect(authz.authorize(req(user, a))).toEqual({ decision, reason });
  });
});
