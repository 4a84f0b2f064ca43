// apps/v1 Deployment and ReplicaSet decoding: upstream's defaults (the template's pod spec gets the pod spec
// defaults, not the pod-only ones), list strategies, protobuf field numbers, and the OpenAPI document of apps/v1
// with its scale subresource answered as autoscaling/v1 Scale.
import { decode } from '../decode';
import { openApiV3 } from '../openapi';
import { patchStrategyAt } from '../patch-strategy';
import { decodeProtobuf } from '../protobuf';
import { ALL_KINDS } from './all';
import { deployment, replicaSet } from './apps-v1';
import { scale } from './autoscaling-v1';

type Json = Record<string, unknown>;

const template = (spec: Json = {}) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec } });
const decodeDeployment = (spec: Json, templateSpec: Json = {}) =>
  decode(deployment, JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: template(templateSpec), ...spec } }), 'Strict').object as Json & {
    spec: Json & { template: { metadata: Json; spec: Json & { containers: Json[] } } };
  };

describe('Deployment defaults', () => {
  test.each<[string, Json, Json]>([
    [
      'an empty spec gets every default',
      {},
      { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 },
    ],
    ['replicas 0 is kept', { replicas: 0 }, { replicas: 0 }],
    ['Recreate gets no rollingUpdate', { strategy: { type: 'Recreate' } }, { strategy: { type: 'Recreate' } }],
    ['a given maxSurge is kept, maxUnavailable defaulted', { strategy: { rollingUpdate: { maxSurge: 1 } } }, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } } }],
    ['revisionHistoryLimit 0 is kept', { revisionHistoryLimit: 0 }, { revisionHistoryLimit: 0 }],
    ['progressDeadlineSeconds kept', { progressDeadlineSeconds: 30 }, { progressDeadlineSeconds: 30 }],
  ])('%s', (_name, spec, expected) => {
    expect(decodeDeployment(spec).spec).toMatchObject(expected);
  });

  test('the template gets the pod spec defaults, and the null creationTimestamp Go writes', () => {
    const template = decodeDeployment({}).spec.template;
    expect(template.metadata).toEqual({ labels: { app: 'web' }, creationTimestamp: null });
    const spec = template.spec;
    expect(spec).toEqual({
      containers: [{ name: 'c', image: 'nginx:1.25', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
    });
  });

  test.each<[string, Json, string, unknown]>([
    ['no enableServiceLinks (a pod default only)', {}, 'enableServiceLinks', undefined],
    ['enableServiceLinks kept when given', { enableServiceLinks: false }, 'enableServiceLinks', false],
    ['hostNetwork kept', { hostNetwork: true }, 'hostNetwork', true],
  ])('template: %s', (_name, templateSpec, field, expected) => {
    expect(decodeDeployment({}, templateSpec).spec.template.spec[field]).toEqual(expected);
  });

  test('template containers keep their resources: requests are not taken from limits, host ports not from container ports', () => {
    const c = { name: 'c', image: 'nginx', resources: { limits: { cpu: '1' } }, ports: [{ containerPort: 80 }] };
    const spec = decodeDeployment({}, { hostNetwork: true, containers: [c] }).spec.template.spec;
    expect(spec.containers[0]).toEqual({ ...c, ports: [{ containerPort: 80, protocol: 'TCP' }], imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
    expect(Object.keys(spec.containers[0])).toEqual(['name', 'image', 'resources', 'ports', 'imagePullPolicy', 'terminationMessagePath', 'terminationMessagePolicy']);
  });
});

describe('ReplicaSet defaults', () => {
  const decodeReplicaSet = (spec: Json) =>
    decode(replicaSet, JSON.stringify({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { selector: { matchLabels: { app: 'web' } }, template: template(), ...spec } }), 'Strict').object as Json & {
      spec: Json & { template: { spec: Json } };
    };

  test.each<[string, Json, unknown]>([
    ['replicas 1', {}, 1],
    ['replicas 0 kept', { replicas: 0 }, 0],
  ])('%s', (_name, spec, replicas) => {
    const rs = decodeReplicaSet(spec);
    expect(rs.spec.replicas).toBe(replicas);
    expect(rs.spec.template.spec.restartPolicy).toBe('Always');
    expect(rs.spec).not.toHaveProperty('strategy');
  });
});

test.each([
  [['spec', 'template', 'spec', 'containers'], { type: 'merge', key: 'name' }],
  [['status', 'conditions'], { type: 'merge', key: 'type' }],
  [['spec', 'selector', 'matchExpressions'], { type: 'replace' }],
])('deployment list %j patches as %j', (path, want) => expect(patchStrategyAt(deployment, path)).toEqual(want));

/** A protobuf message field: tag, then a length-prefixed body (all test bodies are short). */
const field = (n: number, body: Buffer) => Buffer.concat([Buffer.from([(n << 3) | 2, body.length]), body]);
const varint = (n: number, value: number) => Buffer.from([n << 3, value]);
const text = (s: string) => Buffer.from(s);

test('a Deployment in protobuf (as kubectl create deployment sends it) decodes by upstream field numbers', () => {
  // metadata{name=web} spec{replicas=3, selector{matchLabels{app: web}}, template{metadata{labels{app: web}}, spec{containers[{name=c, image=busybox}]}}, strategy{rollingUpdate{maxSurge="1"}}}
  const labels = field(1, Buffer.concat([field(1, text('app')), field(2, text('web'))]));
  const selector = field(2, labels);
  const container = field(2, Buffer.concat([field(1, text('c')), field(2, text('busybox'))]));
  const templ = field(3, Buffer.concat([field(1, field(11, Buffer.concat([field(1, text('app')), field(2, text('web'))]))), field(2, container)]));
  // IntOrString{type=1 (string), strVal="1"}
  const maxSurge = field(2, Buffer.concat([varint(1, 1), field(3, text('1'))]));
  const strategy = field(4, field(2, maxSurge));
  const spec = Buffer.concat([varint(1, 3), selector, templ, strategy]);
  const body = Buffer.concat([field(1, field(1, text('web'))), field(2, spec)]);
  const wrapped = Buffer.concat([Buffer.from('k8s\0'), field(2, body)]);
  expect(decodeProtobuf(deployment, wrapped)).toMatchObject({
    metadata: { name: 'web' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, strategy: { rollingUpdate: { maxSurge: '1' } } },
  });
});

describe('OpenAPI v3 of apps/v1', () => {
  const doc = openApiV3(ALL_KINDS, 'apps', 'v1', [{ resource: deployment, subresource: 'scale', kind: scale }]) as {
    paths: Record<string, Record<string, { 'x-kubernetes-group-version-kind'?: unknown }>>;
    components: { schemas: Record<string, { properties?: Record<string, Json>; required?: string[]; 'x-kubernetes-group-version-kind'?: unknown }> };
  };

  test('schemas named as upstream names them, with their kinds', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['io.k8s.api.apps.v1.Deployment', 'io.k8s.api.apps.v1.ReplicaSet', 'io.k8s.api.autoscaling.v1.Scale']));
    expect(doc.components.schemas['io.k8s.api.autoscaling.v1.Scale']['x-kubernetes-group-version-kind']).toEqual([{ group: 'autoscaling', version: 'v1', kind: 'Scale' }]);
  });

  test('the scale subresource answers with Scale', () => {
    const path = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
    expect(Object.keys(path)).toEqual(['parameters', 'get', 'put', 'patch']);
    expect(path.get['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(doc.paths['/apis/apps/v1/namespaces/{namespace}/replicasets/{name}/scale']).toBeUndefined();
  });

  test('the strategy is retainKeys, the spec requires a selector and a template', () => {
    const spec = doc.components.schemas['io.k8s.api.apps.v1.Deployment'].properties!.spec as { properties: Record<string, Json>; required: string[] };
    expect(spec.properties.strategy['x-kubernetes-patch-strategy']).toBe('retainKeys');
    expect(spec.required).toEqual(['selector', 'template']);
  });
});
