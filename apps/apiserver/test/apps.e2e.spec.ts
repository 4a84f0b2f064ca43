// apps/v1 Deployments and ReplicaSets through kubectl 1.33 against the built binary: discovery (with the scale
// subresources answered as autoscaling/v1 Scale), explain, create with upstream's defaults, scale through the
// scale subresource, set image, field errors in upstream's words, the printed columns, and delete; and, with the
// in-process deployment and replica set controllers, rollout history, undo and status. No node runs the pods (the
// scheduler is off), so no rollout finishes. One server for the file.
import { waitFor } from '@cl/testing';
import { httpsGet, kubectlHelpers, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(180_000);

let api: ApiserverProcess;
const { k, ok, file } = kubectlHelpers(() => api);
const json = (...args: string[]) => JSON.parse(ok(...args, '-o', 'json'));
const SCALE = '/apis/apps/v1/namespaces/default/deployments/web/scale';

const deploymentYaml = (name: string, extra: { labels?: string; restartPolicy?: string; specLine?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:${extra.specLine ? `\n  ${extra.specLine}` : ''}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${extra.labels ?? name}}
    spec:${extra.restartPolicy ? `\n      restartPolicy: ${extra.restartPolicy}` : ''}
      containers:
      - name: c
        image: busybox
`;

beforeAll(async () => {
  api = await startApiserverProcess(['--enable-scheduler=false']);
  await waitFor(async () => (k('get', 'serviceaccount', 'default').status === 0 ? true : undefined), 'the default namespace and its service account');
});
afterAll(() => api?.cleanup());

test('api-resources lists deployments and replicasets in apps/v1; discovery lists their scale subresources as autoscaling/v1 Scale', async () => {
  const rows = new Map(
    ok('api-resources', '--api-group=apps', '--no-headers')
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .map((r) => [r[0], r]),
  );
  expect(rows.get('deployments')).toEqual(['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
  expect(rows.get('replicasets')).toEqual(['replicasets', 'rs', 'apps/v1', 'true', 'ReplicaSet']);
  const list = JSON.parse((await httpsGet(api, '/apis/apps/v1', {})).body);
  const byName = new Map(list.resources.map((r: { name: string }) => [r.name, r]));
  for (const name of ['deployments/scale', 'replicasets/scale']) {
    expect(byName.get(name)).toEqual({ name, singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  }
  expect(byName.get('deployments/status')).toMatchObject({ kind: 'Deployment', verbs: ['get', 'patch', 'update'] });
  expect(byName.get('deployments')).toMatchObject({ categories: ['all'], shortNames: ['deploy'] });
});

test('explain reads the apps/v1 OpenAPI document', () => {
  const out = ok('explain', 'deployment.spec.strategy');
  expect(out).toMatch(/GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1/);
  expect(out).toMatch(/FIELD: strategy <Object>/);
  expect(out).toMatch(/\n {2}rollingUpdate\t<Object>\n/);
  expect(out).toMatch(/\n {2}type\t<string>\n/);
});

test('create deployment: upstream defaults, generation 1', () => {
  expect(ok('create', 'deployment', 'web', '--image=busybox', '--replicas=3')).toBe('deployment.apps/web created\n');
  const d = json('get', 'deploy', 'web');
  expect(d.metadata.generation).toBe(1);
  expect(d.spec).toEqual({
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { creationTimestamp: null, labels: { app: 'web' } },
      spec: {
        containers: [{ name: 'busybox', image: 'busybox', imagePullPolicy: 'Always', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
      },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  });
});

test('scale goes through the scale subresource: spec.replicas and the generation change', () => {
  expect(ok('scale', 'deployment', 'web', '--replicas=5')).toBe('deployment.apps/web scaled\n');
  const d = json('get', 'deploy', 'web');
  expect(d.spec.replicas).toBe(5);
  expect(d.metadata.generation).toBe(2);
  const scale = JSON.parse(ok('get', '--raw', SCALE));
  expect(scale).toEqual({
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: 'web', namespace: 'default', uid: d.metadata.uid, resourceVersion: expect.stringMatching(/^\d+$/), creationTimestamp: d.metadata.creationTimestamp },
    spec: { replicas: 5 },
    status: { replicas: expect.any(Number), selector: 'app=web' },
  });
  expect(ok('get', 'deployment', 'web', '--subresource=scale')).toMatch(/^NAME\s+DESIRED\s+AVAILABLE\nweb\s+5\s+\d+\n$/);
});

test('a Scale written with a stale resourceVersion conflicts', () => {
  const scale = JSON.parse(ok('get', '--raw', SCALE));
  ok('label', 'deployment', 'web', 'touched=yes');
  const stale = k('replace', '--raw', SCALE, '-f', file('stale-scale.json', JSON.stringify({ ...scale, spec: { replicas: 9 } })));
  expect(stale.status).not.toBe(0);
  expect(stale.stderr).toBe('Error from server (Conflict): Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again\n');
  expect(json('get', 'deploy', 'web').spec.replicas).toBe(5);
});

test('set image changes the template and bumps the generation', () => {
  const before = json('get', 'deploy', 'web').metadata.generation;
  expect(ok('set', 'image', 'deployment/web', 'busybox=busybox:2')).toBe('deployment.apps/web image updated\n');
  const d = json('get', 'deploy', 'web');
  expect(d.spec.template.spec.containers[0].image).toBe('busybox:2');
  expect(d.metadata.generation).toBe(before + 1);
});

test.each([
  [
    'a selector the template labels do not match',
    deploymentYaml('bad', { labels: 'other' }),
    'The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`\n',
  ],
  ['restartPolicy OnFailure', deploymentYaml('bad', { restartPolicy: 'OnFailure' }), 'The Deployment "bad" is invalid: spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"\n'],
  [
    'maxSurge and maxUnavailable both 0',
    deploymentYaml('bad', { specLine: 'strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}' }),
    'The Deployment "bad" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0\n',
  ],
  ['negative replicas', deploymentYaml('bad', { specLine: 'replicas: -1' }), 'The Deployment "bad" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n'],
])('create -f refuses %s in upstream words', (_name, manifest, stderr) => {
  const r = k('create', '-f', file('bad.yaml', manifest));
  expect(r.status).not.toBe(0);
  expect(r.stderr).toBe(stderr);
});

test('the selector cannot change', () => {
  const r = k('patch', 'deployment', 'web', '--type=merge', '-p', '{"spec":{"selector":{"matchLabels":{"app":"web","tier":"x"}},"template":{"metadata":{"labels":{"tier":"x"}}}}}');
  expect(r.stderr).toBe(
    'The Deployment "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable\n',
  );
});

test('a ReplicaSet from a file, scaled; get deploy,rs prints upstream columns', () => {
  const rs = `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: front
spec:
  replicas: 2
  selector:
    matchLabels: {tier: front}
  template:
    metadata:
      labels: {tier: front}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`;
  expect(ok('create', '-f', file('rs.yaml', rs))).toBe('replicaset.apps/front created\n');
  const created = json('get', 'rs', 'front');
  expect(created.metadata.generation).toBe(1);
  expect(created.spec.template.spec.restartPolicy).toBe('Always');
  expect(ok('scale', 'rs', 'front', '--replicas=4')).toBe('replicaset.apps/front scaled\n');
  expect(json('get', 'rs', 'front')).toMatchObject({ metadata: { generation: 2 }, spec: { replicas: 4 } });
  // No node runs the pods: nothing is ready, whatever the controllers have made.
  expect(ok('get', 'deploy,rs')).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ndeployment\.apps\/web\s+0\/5\s+\d+\s+0\s+\d+s\n\nNAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\n(.*\n)*replicaset\.apps\/front\s+4\s+\d+\s+0\s+\d+s\n/);
  expect(ok('get', 'deploy', 'web', '-o', 'wide')).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nweb\s+0\/5\s+\d+\s+0\s+\d+s\s+busybox\s+busybox:2\s+app=web\n$/);
  expect(ok('get', 'rs', 'front', '-o', 'wide')).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nfront\s+4\s+\d+\s+0\s+\d+s\s+nginx\s+nginx:1\.27\s+tier=front\n$/);
});

test('apply: a change of strategy type drops rollingUpdate (retainKeys, from the OpenAPI document)', () => {
  expect(ok('apply', '-f', file('applied.yaml', deploymentYaml('applied')))).toBe('deployment.apps/applied created\n');
  expect(json('get', 'deploy', 'applied').spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
  expect(ok('apply', '-f', file('applied.yaml', deploymentYaml('applied', { specLine: 'strategy: {type: Recreate}' })))).toBe('deployment.apps/applied configured\n');
  expect(json('get', 'deploy', 'applied')).toMatchObject({ metadata: { generation: 2 }, spec: { strategy: { type: 'Recreate' } } });
  expect(json('get', 'deploy', 'applied').spec.strategy).toEqual({ type: 'Recreate' });
});

test('rollout history, undo and status read what the controllers write', async () => {
  ok('create', 'deployment', 'roll', '--image=busybox');
  const revisions = () => [...ok('rollout', 'history', 'deployment/roll').matchAll(/^(\d+)\s+<none>$/gm)].map((m) => m[1]);
  await waitFor(async () => (revisions().join() === '1' ? true : undefined), 'revision 1');
  ok('set', 'image', 'deployment/roll', 'busybox=busybox:2');
  await waitFor(async () => (revisions().join() === '1,2' ? true : undefined), 'revision 2');
  expect(ok('rollout', 'undo', 'deployment/roll')).toBe('deployment.apps/roll rolled back\n');
  expect(json('get', 'deploy', 'roll').spec.template.spec.containers[0].image).toBe('busybox');
  await waitFor(async () => (revisions().join() === '2,3' ? true : undefined), 'revision 3');
  expect(ok('rollout', 'status', 'deployment/roll', '--watch=false')).toMatch(/^Waiting for deployment "roll" rollout to finish: /);
});

test('delete deployment', () => {
  expect(ok('delete', 'deployment', 'web')).toBe('deployment.apps "web" deleted\n');
  expect(k('get', 'deployment', 'web').stderr).toBe('Error from server (NotFound): deployments.apps "web" not found\n');
});
