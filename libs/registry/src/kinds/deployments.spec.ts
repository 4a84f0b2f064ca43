// Deployments and ReplicaSets: upstream's validation messages, the generation on create and update, the columns
// of `kubectl get deploy,rs` (-o wide).
import { decode, deployment as deploymentKind, replicaSet as replicaSetKind } from '@cl/api';
import type { KubeObject } from '@cl/apimachinery';
import { deploymentStrategy } from './deployments';
import { replicaSetStrategy } from './replicasets';

type Json = Record<string, unknown>;

const NOW = Date.parse('2026-01-01T01:00:00Z');
const base = () => ({
  selector: { matchLabels: { app: 'web' } } as Json | null,
  template: { metadata: { labels: { app: 'web' } as Record<string, string> }, spec: { containers: [{ name: 'c', image: 'busybox' }] } as Json },
});
/** A decoded (defaulted) Deployment whose spec is the valid base changed by `change`. */
function deploy(change: (spec: Json & ReturnType<typeof base>) => void = () => undefined, meta: Json = {}): KubeObject {
  const spec = base() as Json & ReturnType<typeof base>;
  change(spec);
  const body = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', ...meta }, spec };
  return decode(deploymentKind, JSON.stringify(body), 'Ignore').object as KubeObject;
}
function rs(change: (spec: Json & ReturnType<typeof base>) => void = () => undefined): KubeObject {
  const spec = base() as Json & ReturnType<typeof base>;
  change(spec);
  return decode(replicaSetKind, JSON.stringify({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-1', namespace: 'ns' }, spec }), 'Ignore').object as KubeObject;
}
const messages = (o: KubeObject) => deploymentStrategy.validate!(o).map((e) => e.message);

describe('Deployment validation, in upstream words', () => {
  test.each<[string, (s: Json & ReturnType<typeof base>) => void, string[]]>([
    ['a valid deployment', () => undefined, []],
    ['no selector', (s) => (s.selector = null), ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`']],
    [
      'an empty selector',
      (s) => (s.selector = {}),
      ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment'],
    ],
    ['a selector the labels do not match', (s) => (s.selector = { matchLabels: { app: 'other' } }), ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`']],
    [
      'a bad selector operator',
      (s) => (s.selector = { matchExpressions: [{ key: 'app', operator: 'Is', values: ['web'] }] }),
      [
        'spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator',
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Is", Values:[]string{"web"}}}}: invalid label selector',
      ],
    ],
    ['In without values', (s) => (s.selector = { matchExpressions: [{ key: 'app', operator: 'In' }] }), ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'", 'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"In", Values:[]string(nil)}}}: invalid label selector']],
    ['negative replicas', (s) => (s.replicas = -1), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']],
    ['restartPolicy OnFailure', (s) => (s.template.spec.restartPolicy = 'OnFailure'), ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"']],
    ['a deadline', (s) => (s.template.spec.activeDeadlineSeconds = 10), ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported']],
    ['the pod spec is validated as a pod', (s) => (s.template.spec.containers = [{ name: 'c' }]), ['spec.template.spec.containers[0].image: Required value']],
    ['no containers', (s) => (s.template.spec.containers = []), ['spec.template.spec.containers: Required value']],
    ['template labels are validated', (s) => ((s.template.metadata.labels as Json)['bad key'] = 'x'), [expect.stringMatching(/^spec\.template\.labels: Invalid value: "bad key": name part must consist of/)] as unknown as string[]],
    ['ephemeral containers', (s) => (s.template.spec.ephemeralContainers = [{ name: 'd', image: 'busybox' }]), ['spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template']],
    [
      'maxSurge and maxUnavailable both 0',
      (s) => (s.strategy = { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }),
      ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0'],
    ],
    [
      '0% and 0',
      (s) => (s.strategy = { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } }),
      ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"0%"}: may not be 0 when `maxSurge` is 0'],
    ],
    [
      'a bad percentage',
      (s) => (s.strategy = { rollingUpdate: { maxSurge: '5 %' } }),
      ["spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"5 %\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"],
    ],
    ['over 100%', (s) => (s.strategy = { rollingUpdate: { maxUnavailable: '101%' } }), ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"101%"}: must not be greater than 100%']],
    ['Recreate with rollingUpdate', (s) => (s.strategy = { type: 'Recreate', rollingUpdate: { maxSurge: 1 } }), ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]],
    [
      'an unknown strategy',
      (s) => (s.strategy = { type: 'Blue' }),
      ['spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"Blue", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"'],
    ],
    ['a deadline not above minReadySeconds', (s) => Object.assign(s, { minReadySeconds: 10, progressDeadlineSeconds: 10 }), ['spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds']],
  ])('%s', (_name, change, expected) => {
    expect(messages(deploy(change))).toEqual(expected);
  });
});

describe('Deployment updates', () => {
  const update = (next: KubeObject, old: KubeObject) => {
    deploymentStrategy.prepareForUpdate!(next, old);
    return { generation: next.metadata?.generation, errors: deploymentStrategy.validateUpdate!(next, old).map((e) => e.message) };
  };
  const created = () => {
    const o = deploy();
    deploymentStrategy.prepareForCreate!(o);
    return o;
  };

  test('created with generation 1 and an empty status', () => {
    const o = deploy();
    (o as Json).status = { replicas: 5 };
    deploymentStrategy.prepareForCreate!(o);
    expect(o.metadata?.generation).toBe(1);
    expect((o as Json).status).toEqual({});
  });

  test.each<[string, (o: Json & { spec: Json & { template: Json }; metadata: Json }) => void, number, string[]]>([
    ['nothing changed', () => undefined, 1, []],
    ['a label changed', (o) => (o.metadata.labels = { x: 'y' }), 1, []],
    ['an annotation changed', (o) => (o.metadata.annotations = { note: 'x' }), 2, []],
    ['replicas changed', (o) => (o.spec.replicas = 5), 2, []],
    ['the image changed', (o) => ((o.spec.template as { spec: { containers: Json[] } }).spec.containers[0].image = 'busybox:2'), 2, []],
    ['status is not the main resource\'s to change', (o) => ((o as Json).status = { replicas: 3 }), 1, []],
    [
      'the selector changed',
      (o) => {
        o.spec.selector = { matchLabels: { app: 'web', tier: 'x' } };
        (o.spec.template as { metadata: Json }).metadata.labels = { app: 'web', tier: 'x' };
      },
      2,
      ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable'],
    ],
  ])('%s', (_name, change, generation, errors) => {
    const old = created();
    const next = structuredClone(old) as Json & { spec: Json & { template: Json }; metadata: Json };
    change(next);
    expect(update(next, old)).toEqual({ generation, errors });
    expect((next as Json).status).toEqual({});
  });

  test('an empty matchLabels is the same selector as none written', () => {
    const old = created();
    const next = structuredClone(old) as Json & { spec: { selector: Json } };
    next.spec.selector.matchExpressions = [];
    expect(deploymentStrategy.validateUpdate!(next, old)).toEqual([]);
  });

  test.each<[string, Json, Json, string[]]>([
    ['counts in order', { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 }, {}, []],
    ['ready above replicas', { replicas: 1, readyReplicas: 2, availableReplicas: 1 }, {}, ['status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas']],
    ['available above ready', { replicas: 3, readyReplicas: 1, availableReplicas: 2 }, {}, ['status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas']],
    [
      'negative (and so below every count, as upstream reports it)',
      { replicas: -1 },
      {},
      [
        'status.replicas: Invalid value: -1: must be greater than or equal to 0',
        'status.updatedReplicas: Invalid value: 0: cannot be greater than status.replicas',
        'status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas',
        'status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas',
      ],
    ],
    ['collisionCount decremented', { collisionCount: 1 }, { collisionCount: 2 }, ['status.collisionCount: Invalid value: 1: cannot be decremented']],
  ])('status: %s', (_name, status, oldStatus, expected) => {
    const old = { ...created(), status: oldStatus } as KubeObject;
    expect(deploymentStrategy.validateStatusUpdate!({ ...old, status } as KubeObject, old).map((e) => e.message)).toEqual(expected);
  });
});

test.each<[string, typeof deploymentStrategy, Json, Json]>([
  ['a deployment keeps the labels; annotations are written', deploymentStrategy, { app: 'web' }, { 'deployment.kubernetes.io/revision': '1' }],
  ['a replica set keeps the written labels and annotations', replicaSetStrategy, { app: 'web', added: 'yes' }, { 'deployment.kubernetes.io/revision': '1' }],
])('status writes: %s; spec never changes', (_name, strategy, labels, annotations) => {
  const old = deploy(() => undefined, { labels: { app: 'web' } });
  const next = structuredClone(old) as Json & { spec: Json; metadata: Json };
  next.metadata.labels = { app: 'web', added: 'yes' };
  next.metadata.annotations = { 'deployment.kubernetes.io/revision': '1' };
  next.spec.replicas = 10;
  (next as Json).status = { replicas: 1 };
  strategy.prepareForStatusUpdate!(next, old);
  expect(next.metadata.labels).toEqual(labels);
  expect(next.metadata.annotations).toEqual(annotations);
  expect(next.spec).toEqual((old as Json).spec);
  expect((next as Json).status).toEqual({ replicas: 1 });
});

describe('ReplicaSets', () => {
  test.each<[string, (s: Json & ReturnType<typeof base>) => void, string[]]>([
    ['a valid replica set', () => undefined, []],
    ['no selector', (s) => (s.selector = null), ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`']],
    ['negative minReadySeconds', (s) => (s.minReadySeconds = -5), ['spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0']],
    ['restartPolicy Never', (s) => (s.template.spec.restartPolicy = 'Never'), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']],
  ])('%s', (_name, change, expected) => {
    expect(replicaSetStrategy.validate!(rs(change)).map((e) => e.message)).toEqual(expected);
  });

  test('generation: 1 on create, bumped by spec changes only; the selector is immutable', () => {
    const old = rs();
    replicaSetStrategy.prepareForCreate!(old);
    expect(old.metadata?.generation).toBe(1);
    const annotated = structuredClone(old);
    annotated.metadata!.annotations = { a: 'b' };
    replicaSetStrategy.prepareForUpdate!(annotated, old);
    expect(annotated.metadata?.generation).toBe(1);
    const scaled = structuredClone(old) as Json & { spec: Json };
    scaled.spec.replicas = 4;
    replicaSetStrategy.prepareForUpdate!(scaled, old);
    expect(scaled.metadata).toMatchObject({ generation: 2 });
    const moved = structuredClone(old) as Json & { spec: Json };
    moved.spec.selector = { matchLabels: { app: 'web', x: 'y' } };
    expect(replicaSetStrategy.validateUpdate!(moved, old).map((e) => e.message)).toEqual([
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
  });
});

describe('kubectl get columns', () => {
  const created = { creationTimestamp: '2026-01-01T00:55:00Z' };
  test.each<[string, KubeObject, string[], unknown[]]>([
    [
      'a new deployment',
      deploy((s) => (s.replicas = 3), created),
      ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector'],
      ['web', '0/3', 0, 0, '5m', 'c', 'busybox', 'app=web'],
    ],
    [
      'a rolled-out deployment of two containers',
      {
        ...deploy((s) => {
          s.replicas = 2;
          s.selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] };
          s.template.metadata.labels = { app: 'web', tier: 'a' };
          s.template.spec.containers = [{ name: 'c', image: 'busybox' }, { name: 'side', image: 'envoy:1' }];
        }, created),
        status: { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
      } as KubeObject,
      ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector'],
      ['web', '2/2', 2, 2, '5m', 'c,side', 'busybox,envoy:1', 'app=web,tier in (a,b)'],
    ],
  ])('deployments: %s', (_name, o, columns, cells) => {
    const table = deploymentStrategy.table!;
    expect(['Name', ...table.columns.map((c) => c.name)]).toEqual(columns);
    expect(table.columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['Containers', 'Images', 'Selector']);
    expect([o.metadata?.name, ...table.cells(o, NOW)]).toEqual(cells);
  });

  test('replica sets: DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR', () => {
    const o = { ...rs((s) => (s.replicas = 3)), status: { replicas: 2, readyReplicas: 1 } } as KubeObject;
    o.metadata!.creationTimestamp = '2026-01-01T00:00:00Z';
    const table = replicaSetStrategy.table!;
    expect(table.columns.map((c) => c.name)).toEqual(['Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector']);
    expect(table.cells(o, NOW)).toEqual([3, 2, 1, '60m', 'c', 'busybox', 'app=web']);
  });
});
