// LimitRanger, ResourceQuota and pods/ephemeralcontainers through kubectl 1.33 against the built binary: a
// LimitRange's defaults on a new pod and its refusals, a quota of two pods refusing the third with upstream's
// message and showing usage fall after a delete (the quota controller), and `kubectl debug` adding an ephemeral
// container. One server for the file; each case works in its own namespace.
import { waitFor } from '@cl/testing';
import { httpsGet, kubectlHelpers, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(180_000);

let api: ApiserverProcess;
const { k, ok, file } = kubectlHelpers(() => api);

/**
 * A namespace for one case, once its default service account (which pods need) and its kube-root-ca.crt config
 * map (which counts in configmap quotas) exist, as upstream's e2e framework waits for both.
 */
async function namespace(name: string): Promise<string> {
  ok('create', 'namespace', name);
  await waitFor(async () => (k('-n', name, 'get', 'serviceaccount', 'default').status === 0 ? true : undefined), `service account default in ${name}`);
  await waitFor(async () => (k('-n', name, 'get', 'configmap', 'kube-root-ca.crt').status === 0 ? true : undefined), `kube-root-ca.crt in ${name}`);
  return name;
}

beforeAll(async () => {
  api = await startApiserverProcess();
  await waitFor(async () => (k('get', 'ns', 'default').status === 0 ? true : undefined), 'default namespace');
});
afterAll(() => api?.cleanup());

test('the admission plugins run in upstream order, LimitRanger and ResourceQuota among the defaults', () => {
  expect(api.output()).toContain('Loaded 7 admission plugin(s): NamespaceLifecycle,LimitRanger,ServiceAccount,TaintNodesByCondition,Priority,DefaultTolerationSeconds,ResourceQuota');
});

test('limitranges and resourcequotas are served with their short names; pods/ephemeralcontainers in discovery', async () => {
  const rows = new Map(
    ok('api-resources', '--no-headers')
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .map((r) => [r[0], r]),
  );
  expect(rows.get('limitranges')).toEqual(['limitranges', 'limits', 'v1', 'true', 'LimitRange']);
  expect(rows.get('resourcequotas')).toEqual(['resourcequotas', 'quota', 'v1', 'true', 'ResourceQuota']);
  const core = JSON.parse((await httpsGet(api, '/api/v1', {})).body);
  const byName = new Map(core.resources.map((r: { name: string }) => [r.name, r]));
  expect(byName.get('pods/ephemeralcontainers')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
  expect(byName.get('resourcequotas/status')).toMatchObject({ kind: 'ResourceQuota', verbs: ['get', 'patch', 'update'] });
});

test('LimitRange: defaults filled in, printed and described; pod defaults applied; a pod over max refused', async () => {
  const ns = await namespace('limits');
  const manifest = file(
    'limitrange.yaml',
    `apiVersion: v1
kind: LimitRange
metadata:
  name: limits
spec:
  limits:
  - type: Container
    max: {cpu: "1"}
    min: {cpu: 50m}
    default: {memory: 256Mi}
    defaultRequest: {cpu: 100m, memory: 128Mi}
`,
  );
  expect(ok('-n', ns, 'create', '-f', manifest)).toBe('limitrange/limits created\n');
  expect(ok('-n', ns, 'get', 'limits')).toMatch(/^NAME\s+CREATED AT\nlimits\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
  // The max is the default limit where none is given.
  const stored = JSON.parse(ok('-n', ns, 'get', 'limitrange', 'limits', '-o', 'json'));
  expect(stored.spec.limits[0].default).toEqual({ memory: '256Mi', cpu: '1' });
  expect(ok('-n', ns, 'describe', 'limits', 'limits')).toMatch(/Container\s+cpu\s+50m\s+1\s+100m\s+1\s+-\n/);

  ok('-n', ns, 'run', 'web', '--image=nginx', '--restart=Never');
  const pod = JSON.parse(ok('-n', ns, 'get', 'pod', 'web', '-o', 'json'));
  expect(pod.spec.containers[0].resources).toEqual({ limits: { memory: '256Mi', cpu: '1' }, requests: { cpu: '100m', memory: '128Mi' } });
  expect(pod.metadata.annotations['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web');
  expect(pod.status.qosClass).toBe('Burstable');

  const big = k('-n', ns, 'run', 'big', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"cpu":"2"}}}]}}');
  expect(big.stderr).toBe('Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2\n');
  const both = k('-n', ns, 'run', 'both', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"both","image":"nginx","resources":{"requests":{"cpu":"10m"},"limits":{"cpu":"2"}}}]}}');
  expect(both.stderr).toBe('Error from server (Forbidden): pods "both" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, maximum cpu usage per Container is 1, but limit is 2]\n');

  const bad = k('-n', ns, 'create', '-f', file('bad-limitrange.yaml', 'apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: bad\nspec:\n  limits:\n  - type: Pod\n    min: {cpu: "2"}\n    max: {cpu: "1"}\n'));
  expect(bad.stderr).toBe('The LimitRange "bad" is invalid: spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1\n');
});

test('ResourceQuota: the third pod of pods=2 is refused; usage falls after a delete', async () => {
  const ns = await namespace('quota');
  expect(ok('-n', ns, 'create', 'quota', 'q', '--hard=pods=2,count/configmaps=5')).toBe('resourcequota/q created\n');
  // The quota controller fills in the status; until then the quota limits nothing (as upstream).
  await waitFor(async () => (/pods: 0\/2/.test(ok('-n', ns, 'get', 'quota', 'q')) ? true : undefined), 'quota status');
  expect(ok('-n', ns, 'get', 'quota')).toMatch(/^NAME\s+AGE\s+REQUEST\s+LIMIT\nq\s+\d+s\s+count\/configmaps: 1\/5, pods: 0\/2\s*\n$/);

  ok('-n', ns, 'run', 'one', '--image=nginx', '--restart=Never');
  ok('-n', ns, 'run', 'two', '--image=nginx', '--restart=Never');
  const third = k('-n', ns, 'run', 'three', '--image=nginx', '--restart=Never');
  expect(third.stderr).toBe('Error from server (Forbidden): pods "three" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2\n');
  expect(ok('-n', ns, 'get', 'quota', 'q', '--no-headers')).toMatch(/^q\s+\d+s\s+count\/configmaps: 1\/5, pods: 2\/2\s*\n$/);

  ok('-n', ns, 'create', 'configmap', 'settings', '--from-literal=a=b');
  expect(ok('-n', ns, 'delete', 'pod', 'one', '--wait=false')).toBe('pod "one" deleted\n');
  await waitFor(async () => (/pods: 1\/2/.test(ok('-n', ns, 'get', 'quota', 'q')) ? true : undefined), 'usage after the delete');
  expect(ok('-n', ns, 'describe', 'quota', 'q')).toMatch(/Resource\s+Used\s+Hard\n-+\s+-+\s+-+\ncount\/configmaps\s+2\s+5\npods\s+1\s+2\n$/);
  expect(ok('-n', ns, 'run', 'three', '--image=nginx', '--restart=Never')).toBe('pod/three created\n');
});

test('ResourceQuota: a compute quota requires containers to declare what it limits', async () => {
  const ns = await namespace('compute');
  ok('-n', ns, 'create', 'quota', 'compute', '--hard=requests.cpu=1,limits.memory=1Gi');
  await waitFor(async () => (/requests.cpu: 0\/1/.test(ok('-n', ns, 'get', 'quota', 'compute')) ? true : undefined), 'quota status');
  const bare = k('-n', ns, 'run', 'bare', '--image=nginx');
  expect(bare.stderr).toBe('Error from server (Forbidden): pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: bare; requests.cpu for: bare\n');
  ok('-n', ns, 'run', 'sized', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"sized","image":"nginx","resources":{"requests":{"cpu":"600m"},"limits":{"memory":"512Mi"}}}]}}');
  expect(ok('-n', ns, 'get', 'quota', 'compute', '--no-headers')).toMatch(/^compute\s+\d+s\s+requests.cpu: 600m\/1\s+limits.memory: 512Mi\/1Gi\n$/);
  const more = k('-n', ns, 'run', 'more', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"more","image":"nginx","resources":{"requests":{"cpu":"600m"},"limits":{"memory":"512Mi"}}}]}}');
  expect(more.stderr).toBe('Error from server (Forbidden): pods "more" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1\n');
});

test('kubectl debug adds an ephemeral container; existing ones cannot be removed', async () => {
  const ns = await namespace('debugging');
  ok('-n', ns, 'run', 'app', '--image=nginx', '--restart=Never');
  const debug = k('-n', ns, 'debug', 'app', '--image=busybox', '-c', 'dbg', '--target=app');
  expect(debug.status).toBe(0);
  const pod = JSON.parse(ok('-n', ns, 'get', 'pod', 'app', '-o', 'json'));
  expect(pod.spec.ephemeralContainers).toEqual([
    { name: 'dbg', image: 'busybox', imagePullPolicy: 'Always', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', targetContainerName: 'app' },
  ]);
  expect(pod.metadata.generation).toBe(2);

  const wrongTarget = k('-n', ns, 'debug', 'app', '--image=busybox', '-c', 'dbg2', '--target=nope');
  expect(wrongTarget.stderr).toContain('The Pod "app" is invalid: spec.ephemeralContainers[1].targetContainerName: Not found: "nope"');
  const taken = k('-n', ns, 'debug', 'app', '--image=busybox', '-c', 'app');
  expect(taken.stderr).toContain('The Pod "app" is invalid: spec.ephemeralContainers[1].name: Duplicate value: "app"');

  // Through the subresource only ephemeral containers change, and only by additions.
  const removed = { ...pod, spec: { ...pod.spec, ephemeralContainers: [], containers: [{ ...pod.spec.containers[0], image: 'other' }] } };
  const replace = k('-n', ns, 'replace', '--raw', `/api/v1/namespaces/${ns}/pods/app/ephemeralcontainers`, '-f', file('removed.json', JSON.stringify(removed)));
  expect(replace.stderr).toBe('The Pod "app" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n\n');
  // And not through the pod itself.
  const direct = k('-n', ns, 'patch', 'pod', 'app', '-p', '{"spec":{"ephemeralContainers":[{"name":"sneaky","image":"busybox"}]}}');
  expect(direct.stderr).toMatch(/^The Pod "app" is invalid: spec: Forbidden: pod updates may not change fields other than/);
});
