import { ALL_KINDS, clusterRole, decode, definitionName, lease, namespace, openApiV3, patchStrategyAt, role } from './index';

test.each([
  [['metadata', 'ownerReferences'], { type: 'merge', key: 'uid' }],
  [['metadata', 'finalizers'], { type: 'set' }],
  [['status', 'conditions'], { type: 'merge', key: 'type' }],
  [['spec', 'finalizers'], { type: 'replace' }],
  [['metadata', 'labels'], { type: 'replace' }],
  [['no', 'such'], { type: 'replace' }],
])('namespace list %j patches as %j', (path, want) => expect(patchStrategyAt(namespace, path)).toEqual(want));

test('RBAC rules are replaced whole', () => expect(patchStrategyAt(role, ['rules'])).toEqual({ type: 'replace' }));

test.each([
  [namespace, 'io.k8s.api.core.v1.Namespace'],
  [lease, 'io.k8s.api.coordination.v1.Lease'],
  [clusterRole, 'io.k8s.api.rbac.v1.ClusterRole'],
])('definition names follow upstream: %#', (def, name) => expect(definitionName(def)).toBe(name));

describe('OpenAPI v3 of core/v1', () => {
  const doc = openApiV3(ALL_KINDS, '', 'v1') as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; requestBody?: { content: Record<string, unknown> }; 'x-kubernetes-group-version-kind'?: unknown }>>;
    components: { schemas: Record<string, Record<string, unknown>> };
  };

  test('only the group version asked for', () => {
    expect(Object.keys(doc.components.schemas)).toContain('io.k8s.api.core.v1.ConfigMap');
    expect(Object.keys(doc.components.schemas)).not.toContain('io.k8s.api.coordination.v1.Lease');
  });

  test('the patch operation tells kubectl to leave field validation and strategic merge to the server', () => {
    const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(patch.parameters!.map((p) => p.name)).toContain('fieldValidation');
    expect(Object.keys(patch.requestBody!.content)).toContain('application/strategic-merge-patch+json');
    expect(doc.paths['/api/v1/namespaces/{name}']).toBeDefined();
  });

  test('schemas carry their kind, maps, list strategies and no TypeBox internals', () => {
    const cm = doc.components.schemas['io.k8s.api.core.v1.ConfigMap'] as { properties: Record<string, Record<string, unknown>>; 'x-kubernetes-group-version-kind': unknown };
    expect(cm['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'ConfigMap' }]);
    expect(cm.properties.data).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    const meta = cm.properties.metadata as { properties: Record<string, Record<string, unknown>> };
    expect(meta.properties.ownerReferences).toMatchObject({ type: 'array', 'x-kubernetes-patch-merge-key': 'uid', 'x-kubernetes-patch-strategy': 'merge' });
    expect(meta.properties.creationTimestamp).toMatchObject({ type: 'string', format: 'date-time' });
    expect(JSON.stringify(doc)).not.toMatch(/x-cl-|"additionalProperties":false/);
  });

  test('atomic structs and maps are published as upstream publishes them; value-struct markers are not', () => {
    type Node = { properties: Record<string, Node>; items: Node; 'x-kubernetes-map-type'?: string };
    const pod = doc.components.schemas['io.k8s.api.core.v1.Pod'] as unknown as Node;
    const spec = pod.properties.spec.properties;
    const valueFrom = spec.containers.items.properties.env.items.properties.valueFrom.properties;
    for (const f of ['configMapKeyRef', 'secretKeyRef', 'fieldRef', 'resourceFieldRef']) expect(valueFrom[f]['x-kubernetes-map-type']).toBe('atomic');
    expect(spec.nodeSelector['x-kubernetes-map-type']).toBe('atomic');
    expect(spec.imagePullSecrets.items['x-kubernetes-map-type']).toBe('atomic');
    expect(spec.containers.items.properties.resources['x-kubernetes-map-type']).toBeUndefined();
    const event = doc.components.schemas['io.k8s.api.core.v1.Event'] as unknown as Node;
    expect(event.properties.involvedObject['x-kubernetes-map-type']).toBe('atomic');
    const rbac = openApiV3(ALL_KINDS, 'rbac.authorization.k8s.io', 'v1') as { components: { schemas: Record<string, Node> } };
    const binding = rbac.components.schemas['io.k8s.api.rbac.v1.RoleBinding'].properties;
    expect([binding.roleRef['x-kubernetes-map-type'], binding.subjects.items['x-kubernetes-map-type']]).toEqual(['atomic', 'atomic']);
    expect(JSON.stringify(rbac)).not.toMatch(/x-cl-/);
  });

  test('rbac roleRef lists its required fields', () => {
    const rbac = openApiV3(ALL_KINDS, 'rbac.authorization.k8s.io', 'v1') as { components: { schemas: Record<string, { required?: string[]; properties: Record<string, { required?: string[] }> }> } };
    const binding = rbac.components.schemas['io.k8s.api.rbac.v1.RoleBinding'];
    expect(binding.required).toEqual(['roleRef']);
    expect(binding.properties.roleRef.required).toEqual(['apiGroup', 'kind', 'name']);
  });
});

test.each(ALL_KINDS.map((k) => [k.kind, k] as const))('%s decodes a minimal object strictly', (_kind, def) => {
  const body = JSON.stringify({ apiVersion: def.group ? `${def.group}/${def.version}` : def.version, kind: def.kind, metadata: { name: 'x', labels: { a: 'b' } } });
  expect(decode(def, body, 'Strict').warnings).toEqual([]);
});
