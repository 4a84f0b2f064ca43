import { ApplyConflictError, FieldManager, FieldSet, formatPath, InvalidApplyError, managerFromUserAgent, validateFieldManager, type ManagedFieldsEntry, type Schema } from './index';

// Schemas in the shape TypeBox gives the kinds (closed objects, Records as patternProperties, list extensions).
const str: Schema = { type: 'string' };
const record = (values: Schema): Schema => ({ type: 'object', patternProperties: { '^(.*)$': values } });
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties, additionalProperties: false });
const mapList = (items: Schema, ...keys: string[]): Schema => ({ type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys });
const metadata = obj({ name: str, namespace: str, uid: str, resourceVersion: str, labels: record(str), annotations: record(str), finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' }, managedFields: { type: 'array', items: {} } });
const container = obj({ name: str, image: str, args: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' }, ports: mapList(obj({ containerPort: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } }), 'containerPort', 'protocol') });
const schema: Schema = obj({
  apiVersion: str,
  kind: str,
  metadata,
  data: record(str),
  spec: obj({ replicas: { type: 'integer' }, containers: mapList(container, 'name'), extra: { 'x-kubernetes-preserve-unknown-fields': true } }),
  status: obj({ phase: str }),
});

const T0 = '2026-01-01T00:00:00Z';
const fm = () => new FieldManager({ schema, apiVersion: 'v1', ignoredFields: { '': ['status'], status: ['spec'] }, now: () => T0 });
type Obj = Record<string, unknown> & { metadata?: Record<string, unknown> };
const cm = (data: Record<string, string>, extra: Record<string, unknown> = {}): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...extra }, data });
const managers = (o: Obj) => ((o.metadata?.managedFields ?? []) as ManagedFieldsEntry[]).map((e) => [e.manager, e.operation, e.subresource ?? '', e.fieldsV1]);
const updated = (live: Obj | null, next: Obj, manager: string, subresource?: string) => {
  const copy = structuredClone(next);
  fm().update(live, copy, { manager, subresource });
  return copy;
};

describe('FieldSet', () => {
  it.each([
    ['a leaf', [['f:data', 'f:a']], { 'f:data': { 'f:a': {} } }],
    ['a member with children writes . first', [['f:data'], ['f:data', 'f:a']], { 'f:data': { '.': {}, 'f:a': {} } }],
    ['fields before keys before values', [['f:x', 'v:"b"'], ['f:x', 'k:{"name":"a"}'], ['f:x', 'f:z']], { 'f:x': { 'f:z': {}, 'k:{"name":"a"}': {}, 'v:"b"': {} } }],
    ['names sorted as strings', [['f:b'], ['f:a'], ['f:B']], { 'f:B': {}, 'f:a': {}, 'f:b': {} }],
  ])('%s', (_name, paths, want) => {
    const s = FieldSet.of(...paths);
    expect(JSON.stringify(s.toFieldsV1())).toBe(JSON.stringify(want));
    expect(FieldSet.fromFieldsV1(want).equals(s)).toBe(true);
  });

  it('set operations', () => {
    const a = FieldSet.of(['f:a'], ['f:b', 'f:c']);
    const b = FieldSet.of(['f:b', 'f:c'], ['f:d']);
    expect(a.union(b).paths()).toEqual([['f:a'], ['f:b', 'f:c'], ['f:d']]);
    expect(a.intersection(b).paths()).toEqual([['f:b', 'f:c']]);
    expect(a.difference(b).paths()).toEqual([['f:a']]);
    expect(a.difference(a).empty).toBe(true);
  });

  it.each([
    [['f:data', 'f:key'], '.data.key'],
    [['f:spec', 'f:containers', 'k:{"name":"x"}', 'f:image'], '.spec.containers[name="x"].image'],
    [['f:spec', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'], '.spec.ports[containerPort=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', 'v:"a"'], '.metadata.finalizers[="a"]'],
    [['f:x', 'i:0'], '.x[0]'],
  ])('formats %j as %s', (path, want) => expect(formatPath(path)).toBe(want));

  it('refuses what is not FieldsV1', () => {
    expect(() => FieldSet.fromFieldsV1({ 'x:a': {} })).toThrow();
    expect(() => FieldSet.fromFieldsV1([])).toThrow();
  });
});

// A Deployment's schema as libs/api marks it: structs Go declares by value, fields Go writes as null when unset,
// and atomic structs and maps (+structType=atomic / +mapType=atomic).
const valueStruct = (s: Schema): Schema => ({ ...s, 'x-cl-value-struct': true });
const nullWhenUnset = (s: Schema): Schema => ({ ...s, 'x-cl-null-when-unset': true });
const atomic = (s: Schema): Schema => ({ ...s, 'x-kubernetes-map-type': 'atomic' });
const int: Schema = { type: 'integer' };
const intOrString: Schema = { anyOf: [int, str] };
const goMeta = valueStruct(obj({ name: str, namespace: str, uid: str, creationTimestamp: nullWhenUnset({ anyOf: [str, { type: 'null' }] }), labels: record(str), managedFields: { type: 'array', items: {} } }));
const envVar = obj({
  name: str,
  value: str,
  valueFrom: obj({ configMapKeyRef: atomic(obj({ name: str, key: str, optional: { type: 'boolean' } })), fieldRef: atomic(obj({ apiVersion: str, fieldPath: str })) }),
});
const goContainer = obj({
  name: str,
  image: str,
  imagePullPolicy: str,
  terminationMessagePath: str,
  terminationMessagePolicy: str,
  env: mapList(envVar, 'name'),
  resources: valueStruct(obj({ limits: record(str), requests: record(str) })),
  securityContext: obj({ privileged: { type: 'boolean' } }),
});
const goPodSpec = obj({
  containers: nullWhenUnset(mapList(goContainer, 'name')),
  restartPolicy: str,
  terminationGracePeriodSeconds: int,
  dnsPolicy: str,
  securityContext: obj({ runAsUser: int }),
  schedulerName: str,
  nodeSelector: atomic(record(str)),
});
const deploymentSchema: Schema = obj({
  apiVersion: str,
  kind: str,
  metadata: goMeta,
  spec: valueStruct(
    obj({
      replicas: int,
      selector: atomic(obj({ matchLabels: record(str) })),
      template: valueStruct(obj({ metadata: goMeta, spec: valueStruct(goPodSpec) })),
      strategy: valueStruct(obj({ type: str, rollingUpdate: obj({ maxSurge: intOrString, maxUnavailable: intOrString }) })),
      revisionHistoryLimit: int,
      progressDeadlineSeconds: int,
    }),
  ),
  status: valueStruct(obj({ replicas: int, observedGeneration: int })),
});
const fmDeployment = () => new FieldManager({ schema: deploymentSchema, apiVersion: 'apps/v1', ignoredFields: { '': ['status'], status: ['spec'] }, now: () => T0 });

/** `kubectl create deployment x --image=nginx` as the server stores it, after defaults (plus `more` containers). */
const kubectlDeployment = (more: Record<string, unknown>[] = []): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'x', namespace: 'default', uid: 'u', creationTimestamp: T0, labels: { app: 'x' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'x' } },
    template: {
      metadata: { creationTimestamp: null, labels: { app: 'x' } },
      spec: {
        containers: [{ name: 'nginx', image: 'nginx', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }, ...more],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        securityContext: {},
        schedulerName: 'default-scheduler',
      },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {},
});
const NGINX = { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} };
/** What kube-apiserver 1.33 records for that create, with the template's containers `containers`. */
const upstreamDeploymentFields = (containers: Record<string, unknown>) => ({
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  'f:spec': {
    'f:progressDeadlineSeconds': {},
    'f:replicas': {},
    'f:revisionHistoryLimit': {},
    'f:selector': {},
    'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
    'f:template': {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:containers': containers, 'f:dnsPolicy': {}, 'f:restartPolicy': {}, 'f:schedulerName': {}, 'f:securityContext': {}, 'f:terminationGracePeriodSeconds': {} },
    },
  },
});

describe('FieldManager.update of a kind with Go value structs', () => {
  it.each([
    ['kubectl create deployment: value structs and non-omitempty fields own no ".", pointers and maps do', [], { 'k:{"name":"nginx"}': NGINX }],
    [
      'a container without resources still owns them (Go writes {}), an atomic struct is one leaf',
      [{ name: 'side', image: 'busybox', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }], securityContext: { privileged: true } }],
      {
        'k:{"name":"nginx"}': NGINX,
        'k:{"name":"side"}': {
          '.': {},
          'f:env': { '.': {}, 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:valueFrom': { '.': {}, 'f:configMapKeyRef': {} } } },
          'f:image': {},
          'f:name': {},
          'f:resources': {},
          'f:securityContext': { '.': {}, 'f:privileged': {} },
        },
      },
    ],
  ])('%s', (_name, more, containers) => {
    const d = kubectlDeployment(more);
    fmDeployment().update(null, d, { manager: 'kubectl-create' });
    expect(managers(d)).toEqual([['kubectl-create', 'Update', '', upstreamDeploymentFields(containers)]]);
  });

  it.each([
    ['a status first written owns no "." (status is a value struct)', (d: Obj) => (d.status = { replicas: 1, observedGeneration: 1 }), 'status', { 'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} } }],
    [
      'a value struct the stored object lacks is there all the same',
      (d: Obj) => ((d.spec as { template: { spec: Record<string, unknown> } }).template.spec.containers = [{ name: 'nginx', image: 'nginx', resources: { limits: { cpu: '1' } } }]),
      '',
      { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { 'f:resources': { 'f:limits': { '.': {}, 'f:cpu': {} } } } } } } } },
    ],
    [
      'an atomic struct changed is owned whole by its new writer',
      (d: Obj) => ((d.spec as { selector: unknown }).selector = { matchLabels: { app: 'y' } }),
      '',
      { 'f:spec': { 'f:selector': {} } },
    ],
  ])('%s', (_name, change, subresource, want) => {
    const live = kubectlDeployment();
    delete live.status;
    const containers = (live.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec.containers;
    delete containers[0].resources;
    const next = structuredClone(live);
    change(next);
    fmDeployment().update(live, next, { manager: 'editor', subresource: subresource || undefined });
    expect(managers(next).find(([m]) => m === 'editor')?.[3]).toEqual(want);
  });
});

describe('FieldManager.update', () => {
  it('records a create as upstream: new maps own themselves, list items are members, server fields are nobody\'s', () => {
    const pod: Obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', uid: 'u', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }] } };
    expect(managers(updated(null, pod, 'kubectl-create'))).toEqual([
      [
        'kubectl-create',
        'Update',
        '',
        {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': { 'f:containers': { '.': {}, 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } } } },
        },
      ],
    ]);
  });

  it.each([
    ['takes over the fields it changes', { a: '1', b: '2' }, { a: '9', b: '2' }, [['creator', { 'f:data': { '.': {}, 'f:b': {} } }], ['editor', { 'f:data': { 'f:a': {} } }]]],
    ['owns what it adds', { a: '1' }, { a: '1', b: '2' }, [['creator', { 'f:data': { '.': {}, 'f:a': {} } }], ['editor', { 'f:data': { 'f:b': {} } }]]],
    ['removes what it removes from everyone', { a: '1', b: '2' }, { a: '1' }, [['creator', { 'f:data': { '.': {}, 'f:a': {} } }]]],
    ['a no-op write records nothing', { a: '1' }, { a: '1' }, [['creator', { 'f:data': { '.': {}, 'f:a': {} } }]]],
  ])('%s', (_name, before, after, want) => {
    const live = updated(null, cm(before), 'creator');
    const next = updated(live, { ...cm(after), metadata: { ...live.metadata } }, 'editor');
    expect(managers(next).map(([m, , , f]) => [m, f])).toEqual(want);
  });

  it('merges a manager\'s later update into its entry, and keeps the entry\'s subresource apart', () => {
    const live = updated(null, { ...cm({ a: '1' }), status: { phase: 'A' } }, 'm');
    const second = updated(live, { ...structuredClone(live), data: { a: '1', b: '2' } }, 'm');
    expect(managers(second)).toEqual([['m', 'Update', '', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }]]);
    const status = updated(second, { ...structuredClone(second), status: { phase: 'B' }, spec: { replicas: 3 } }, 'm', 'status');
    expect(managers(status)).toEqual([
      ['m', 'Update', '', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }],
      ['m', 'Update', 'status', { 'f:status': { 'f:phase': {} } }],
    ]);
  });

  it.each([
    ['[{}] resets them', [{}], [['editor', { 'f:data': { 'f:b': {} } }]]],
    ['[] resets them', [], [['editor', { 'f:data': { 'f:b': {} } }]]],
    ['an entry that does not decode is ignored', [{ manager: 'x', operation: 'Bogus' }], [['creator', { 'f:data': { '.': {}, 'f:a': {} } }], ['editor', { 'f:data': { 'f:b': {} } }]]],
    [
      'valid entries replace them',
      [{ manager: 'other', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }],
      [['other', { 'f:data': { 'f:a': {} } }], ['editor', { 'f:data': { 'f:b': {} } }]],
    ],
  ])('client-sent managedFields: %s', (_name, sent, want) => {
    const live = updated(null, cm({ a: '1' }), 'creator');
    const next = updated(live, cm({ a: '1', b: '2' }, { managedFields: sent }), 'editor');
    expect(managers(next).map(([m, , , f]) => [m, f])).toEqual(want);
  });

  it('keeps at most 10 Update entries, merging the oldest into ancient-changes', () => {
    let t = 0;
    const m = new FieldManager({ schema, apiVersion: 'v1', now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, t++)).toISOString().replace('.000', '') });
    let live: Obj = cm({});
    m.update(null, live, { manager: 'm0' });
    for (let i = 1; i <= 11; i++) {
      const next = structuredClone(live);
      (next.data as Record<string, string>)[`k${i}`] = 'v';
      m.update(live, next, { manager: `m${i}` });
      live = next;
    }
    const names = managers(live).map(([n]) => n);
    expect(names).toHaveLength(10);
    expect(names[0]).toBe('ancient-changes');
    // m0 created the empty map (owning it), m1 and m2 added keys: the oldest three are one entry now.
    expect(managers(live)[0][3]).toEqual({ 'f:data': { '.': {}, 'f:k1': {}, 'f:k2': {} } });
  });
});

describe('FieldManager.apply', () => {
  const apply = (live: Obj | null, config: Obj, manager: string, force = false, subresource?: string) => fm().apply(live, structuredClone(config), { manager, subresource }, force);

  it('creates, and applying the same again changes nothing', () => {
    const first = apply(null, cm({ a: '1' }), 'ssa');
    expect(managers(first)).toEqual([['ssa', 'Apply', '', { 'f:data': { 'f:a': {} } }]]);
    expect(first.metadata!.managedFields).toEqual([{ manager: 'ssa', operation: 'Apply', apiVersion: 'v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }]);
    expect(apply(first, cm({ a: '1' }), 'ssa')).toEqual(first);
  });

  it.each([
    ['drops a field it no longer applies', { a: '1', b: '2' }, { a: '1' }, null, { a: '1' }],
    ['keeps one another manager also owns', { a: '1', b: '2' }, { a: '1' }, { b: '2' }, { a: '1', b: '2' }],
    ['drops the whole map when nothing under it is applied', { a: '1' }, undefined, null, undefined],
  ])('%s', (_name, before, after, otherOwns, want) => {
    let live = apply(null, cm(before as Record<string, string>), 'ssa');
    if (otherOwns) live = apply(live, cm(otherOwns), 'other');
    const config = cm(after as Record<string, string>);
    if (after === undefined) delete config.data;
    expect(apply(live, config, 'ssa').data).toEqual(want);
  });

  const podWith = (names: string[]): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: names.map((name) => ({ name, image: name })) } });
  const containerNames = (o: Obj) => ((o.spec as { containers?: { name: string }[] } | undefined)?.containers ?? []).map((c) => c.name);
  it.each([
    ['drops a list item it no longer applies', [['one', ['a', 'b']]], ['one', ['a']], ['a']],
    ['keeps an item another applier applies too', [['one', ['a', 'b']], ['two', ['b']]], ['one', ['a']], ['a', 'b']],
    ['keeps items of others, in the configuration\'s order', [['one', ['a']], ['two', ['z']]], ['one', ['b', 'a']], ['b', 'a', 'z']],
    ['applying no items drops the list', [['one', ['a']]], ['one', []], []],
  ])('associative lists: %s', (_name, before, [manager, names], want) => {
    let live: Obj | null = null;
    for (const [m, n] of before as [string, string[]][]) live = apply(live, podWith(n), m);
    expect(containerNames(apply(live, podWith(names as string[]), manager as string))).toEqual(want);
  });

  it('ownership moves to an updater of a list item\'s field, and back to a forced applier', () => {
    const live = apply(null, podWith(['a']), 'one');
    const edited = updated(live, { ...structuredClone(live), spec: { containers: [{ name: 'a', image: 'edited' }] } }, 'editor');
    expect(managers(edited).map(([m, , , f]) => [m, f])).toEqual([
      ['one', { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:name': {} } } } }],
      ['editor', { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { 'f:image': {} } } } }],
    ]);
    expect(() => apply(edited, podWith(['a']), 'one')).toThrow('conflict with "editor" using v1: .spec.containers[name="a"].image');
    expect(managers(apply(edited, podWith(['a']), 'one', true)).map(([m]) => m)).toEqual(['one']);
  });

  it('nested maps: a key no longer applied goes, a sibling another manager set stays', () => {
    const extra = (e: Record<string, unknown>): Obj => ({ apiVersion: 'v1', kind: 'X', metadata: { name: 'c' }, spec: { extra: e } });
    let live = apply(null, extra({ a: { b: 1, c: 2 } }), 'one');
    live = updated(live, { ...structuredClone(live), spec: { extra: { a: { b: 1, c: 2, d: 3 } } } }, 'editor');
    expect(apply(live, extra({ a: { b: 1 } }), 'one').spec).toEqual({ extra: { a: { b: 1, d: 3 } } });
  });

  it('conflicts with an updater\'s field of another value, and force takes it over', () => {
    const live = updated(null, cm({ key: 'old', same: 's' }), 'kubectl-client-side-apply');
    let err: unknown;
    try {
      apply(live, cm({ key: 'new', same: 's' }), 'ssa');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApplyConflictError);
    expect((err as Error).message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key');
    expect((err as ApplyConflictError).causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.key' }]);
    const forced = apply(live, cm({ key: 'new', same: 's' }), 'ssa', true);
    expect(managers(forced)).toEqual([
      ['ssa', 'Apply', '', { 'f:data': { 'f:key': {}, 'f:same': {} } }],
      ['kubectl-client-side-apply', 'Update', '', { 'f:data': { '.': {}, 'f:same': {} } }],
    ]);
  });

  it('lists several conflicts grouped by manager, appliers without a version', () => {
    let live = apply(null, cm({ a: '1', b: '1' }), 'one');
    live = apply(live, { ...cm({ c: '1' }), spec: { replicas: 1 } }, 'two');
    expect(() => apply(live, { ...cm({ a: '2', b: '2', c: '2' }), spec: { replicas: 2 } }, 'three')).toThrow(
      'Apply failed with 4 conflicts: conflicts with "one":\n- .data.a\n- .data.b\nconflicts with "two":\n- .data.c\n- .spec.replicas',
    );
  });

  it('merges associative lists by key and reports their paths', () => {
    const pod = (image: string, extraContainer = false): Obj => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'a', image }, ...(extraContainer ? [{ name: 'b', image: 'b' }] : [])] },
    });
    const live = apply(null, pod('a1'), 'one');
    const both = apply(live, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'b', image: 'b' }] } }, 'two');
    expect((both.spec as { containers: unknown[] }).containers).toEqual([{ name: 'a', image: 'a1' }, { name: 'b', image: 'b' }]);
    expect(() => apply(both, pod('a2'), 'two')).toThrow('Apply failed with 1 conflict: conflict with "one": .spec.containers[name="a"].image');
  });

  it('treats atomic lists and sets as upstream', () => {
    const withArgs = (args: string[], finalizers: string[]): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', finalizers }, spec: { containers: [{ name: 'a', args }] } });
    const live = apply(null, withArgs(['x', 'y'], ['f1']), 'one');
    expect(managers(live)[0][3]).toEqual({ 'f:metadata': { 'f:finalizers': { 'v:"f1"': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:args': {}, 'f:name': {} } } } });
    // Another applier adding a finalizer shares the set; changing an atomic list conflicts on the whole list.
    const shared = apply(live, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', finalizers: ['f2'] } }, 'two');
    expect((shared.metadata as { finalizers: string[] }).finalizers).toEqual(['f1', 'f2']);
    expect(() => apply(shared, withArgs(['z'], []), 'two')).toThrow('conflict with "one": .spec.containers[name="a"].args');
  });

  it('owns only status through the status subresource', () => {
    const live = apply(null, { ...cm({ a: '1' }), status: { phase: 'X' } }, 'ssa');
    expect(managers(live)[0][3]).toEqual({ 'f:data': { 'f:a': {} } });
    const status = apply(live, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, status: { phase: 'Y' } }, 'kubelet', false, 'status');
    expect(managers(status)).toEqual([
      ['kubelet', 'Apply', 'status', { 'f:status': { 'f:phase': {} } }],
      ['ssa', 'Apply', '', { 'f:data': { 'f:a': {} } }],
    ]);
  });

  it('walks untyped fields as maps, their lists whole', () => {
    const live = apply(null, { apiVersion: 'v1', kind: 'X', metadata: { name: 'c' }, spec: { extra: { a: { b: 1 }, l: [1, 2] } } }, 'ssa');
    expect(managers(live)[0][3]).toEqual({ 'f:spec': { 'f:extra': { 'f:a': { 'f:b': {} }, 'f:l': {} } } });
  });

  it('lets kubectl take over client-side-applied fields whose value is still the last-applied one', () => {
    const last = JSON.stringify(cm({ key: 'v' }));
    const live = updated(null, cm({ key: 'v', other: 'o' }, { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': last } }), 'kubectl-client-side-apply');
    const changed = cm({ key: 'v2' });
    const out = apply(live, changed, 'kubectl');
    expect(out.data).toEqual({ key: 'v2', other: 'o' });
    expect(JSON.parse((out.metadata!.annotations as Record<string, string>)['kubectl.kubernetes.io/last-applied-configuration'])).toEqual(changed);
    expect(() => apply(live, changed, 'someone-else')).toThrow(ApplyConflictError);
  });

  it.each([
    ['managedFields in the configuration', cm({}, { managedFields: [] }), 'metadata.managedFields must be nil'],
    ['duplicate keys in a list', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }, { name: 'a' }] } }, 'duplicate entries for key'],
  ])('refuses %s', (_name, config, message) => {
    expect(() => apply(cm({}), config as Obj, 'ssa')).toThrow(InvalidApplyError);
    expect(() => apply(cm({}), config as Obj, 'ssa')).toThrow(message);
  });
});

describe('manager names', () => {
  it.each([
    ['kubectl/v1.33.0 (linux/amd64) kubernetes/abc', 'kubectl'],
    ['kube-controller-manager/v1.33.0', 'kube-controller-manager'],
    ['', ''],
    ['bad\u0007name', 'badname'],
  ])('%j -> %j', (ua, want) => expect(managerFromUserAgent(ua)).toBe(want));

  it('validates fieldManager as upstream', () => {
    expect(validateFieldManager('ok')).toEqual([]);
    expect(validateFieldManager('x'.repeat(129))).toEqual([{ type: 'TooLong', max: 128 }]);
    expect(validateFieldManager('a\u0007')).toEqual([{ type: 'Invalid', detail: 'invalid character U+0007 (at position 1)' }]);
  });
});
