// Pods and nodes through kubectl 1.33 against the built binary: create and print them as kubectl prints
// kube-apiserver's, bind a pod, graceful deletion completed by a client sending gracePeriodSeconds=0 (the node
// agent's confirmation), --force, cordon and taint, field selectors, and a bad pod's field errors.
import { request } from 'node:https';
import { waitFor } from '@cl/testing';
import { httpsGet, kubectlHelpers, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(180_000);

let api: ApiserverProcess;
const { k, ok, file } = kubectlHelpers(() => api);
const call = (method: string, path: string, body?: unknown) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    // Node sends a DELETE body with neither a length nor chunking unless told its length.
    const headers: Record<string, string | number> = { 'Content-Type': 'application/json', ...(text ? { 'Content-Length': Buffer.byteLength(text) } : {}) };
    const req = request({ host: '127.0.0.1', port: api.port, path, method, rejectUnauthorized: false, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(text);
  });

const NODE = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'node-role.kubernetes.io/worker': '' } },
  status: {
    conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: 'ready', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    addresses: [{ type: 'InternalIP', address: '10.0.0.7' }, { type: 'Hostname', address: name }],
    nodeInfo: { kubeletVersion: 'v1.33.0', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.6.20', machineID: '', systemUUID: '', bootID: '', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
  },
});

beforeAll(async () => {
  // Binding by hand and the status as the API server leaves it: no scheduler may act on these pods (see
  // scheduler.e2e.spec.ts for the one the server runs by default).
  // Neither a scheduler nor node lifecycle: these cases watch the API's own handling of nodes and pods.
  api = await startApiserverProcess(['--enable-scheduler=false', '--controllers=*,-nodelifecycle']);
  await waitFor(async () => (k('get', 'ns', 'default').status === 0 ? true : undefined), 'default namespace');
});
afterAll(() => api?.cleanup());

test('a node registered with its status prints as kubectl prints nodes; cordon and taint change it', async () => {
  expect((await call('POST', '/api/v1/nodes', NODE('node-a'))).status).toBe(201);
  expect(ok('get', 'nodes')).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\nnode-a\s+Ready\s+worker\s+\d+s\s+v1\.33\.0\n$/);
  expect(ok('get', 'nodes', '-o', 'wide')).toMatch(/node-a\s+Ready\s+worker\s+\d+s\s+v1\.33\.0\s+10\.0\.0\.7\s+<none>\s+Debian GNU\/Linux 12\s+6\.1\.0\s+containerd:\/\/1\.6\.20\n$/);
  expect(ok('cordon', 'node-a')).toBe('node/node-a cordoned\n');
  expect(ok('get', 'nodes', 'node-a', '--no-headers')).toMatch(/^node-a\s+Ready,SchedulingDisabled\s+/);
  expect(ok('get', 'nodes', '--field-selector', 'spec.unschedulable=true', '-o', 'name')).toBe('node/node-a\n');
  expect(ok('uncordon', 'node-a')).toBe('node/node-a uncordoned\n');
  expect(ok('taint', 'nodes', 'node-a', 'dedicated=db:NoSchedule')).toBe('node/node-a tainted\n');
  // TaintNodesByCondition tainted the new node not-ready (node lifecycle, off here, lifts it once Ready).
  expect(JSON.parse(ok('get', 'node', 'node-a', '-o', 'json')).spec.taints).toEqual(
    expect.arrayContaining([{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]),
  );
  const bad = k('taint', 'nodes', 'node-a', 'x=y:Sometimes');
  expect(bad.status).not.toBe(0);
});

test('run a pod: defaults as upstream, printed Pending, bound through pods/binding, selected by spec.nodeName', async () => {
  expect(ok('run', 'web', '--image=busybox:1.36', '--restart=Never')).toBe('pod/web created\n');
  const pod = JSON.parse(ok('get', 'pod', 'web', '-o', 'json'));
  expect(pod.spec).toMatchObject({ restartPolicy: 'Never', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler', enableServiceLinks: true });
  expect(pod.spec.containers[0]).toMatchObject({ name: 'web', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
  expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  // Admission: the default service account (kept in every namespace by a controller) and the default tolerations.
  expect(pod.spec.serviceAccountName).toBe('default');
  expect(pod.spec.tolerations).toEqual([
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
  const noAccount = k('run', 'lost', '--image=busybox', '--overrides={"spec":{"serviceAccountName":"nobody"}}');
  expect(noAccount.stderr).toBe('Error from server (Forbidden): pods "lost" is forbidden: service account default/nobody was not found, retry after the service account is created\n');
  expect(pod.metadata.generation).toBe(1);
  expect(ok('get', 'pods')).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nweb\s+0\/1\s+Pending\s+0\s+\d+s\n$/);
  const bind = await call('POST', '/api/v1/namespaces/default/pods/web/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' }, target: { kind: 'Node', name: 'node-a' } });
  expect(bind.status).toBe(201);
  const again = await call('POST', '/api/v1/namespaces/default/pods/web/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' }, target: { kind: 'Node', name: 'node-b' } });
  expect(again.status).toBe(409);
  expect(JSON.parse(again.body).message).toBe('Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-a"');
  expect(ok('get', 'pods', '-o', 'wide')).toMatch(/web\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+node-a\s+<none>\s+<none>\n$/);
  expect(ok('get', 'pods', '--field-selector', 'spec.nodeName=node-a', '-o', 'name')).toBe('pod/web\n');
  expect(ok('get', 'pods', '--field-selector', 'spec.nodeName=node-b', '-o', 'name')).toBe('');
  const fields = k('get', 'pods', '--field-selector', 'spec.image=x');
  expect(fields.stderr).toContain('field label not supported: spec.image');
});

test('status is written through pods/status only; the pod table follows it', async () => {
  const current = JSON.parse(ok('get', 'pod', 'web', '-o', 'json'));
  const status = {
    phase: 'Running',
    podIP: '10.1.0.5',
    podIPs: [{ ip: '10.1.0.5' }],
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'web', ready: true, restartCount: 2, image: 'busybox:1.36', imageID: '', state: { running: { startedAt: '2026-01-01T00:00:00Z' } }, lastState: { terminated: { exitCode: 1, finishedAt: new Date(Date.now() - 300_000).toISOString().replace(/\.\d+Z$/, 'Z') } } }],
  };
  // The main resource ignores status...
  const ignored = await call('PUT', '/api/v1/namespaces/default/pods/web', { ...current, status });
  expect(JSON.parse(ignored.body).status.phase).toBe('Pending');
  // ...and /status takes it.
  const r = await call('PUT', '/api/v1/namespaces/default/pods/web/status', { ...JSON.parse(ignored.body), status: { ...status, qosClass: 'BestEffort' } });
  expect(r.status).toBe(200);
  expect(ok('get', 'pods', 'web', '-o', 'wide', '--no-headers')).toMatch(/^web\s+1\/1\s+Running\s+2 \(5m\d*s? ago\)\s+\d+s\s+10\.1\.0\.5\s+node-a\s+<none>\s+<none>\n$/);
  const patched = k('patch', 'pod', 'web', '-p', '{"spec":{"containers":[{"name":"web","image":"busybox:1.37"}]}}');
  expect(patched.stdout).toBe('pod/web patched\n');
  const forbidden = k('patch', 'pod', 'web', '-p', '{"spec":{"restartPolicy":"Always"}}');
  expect(forbidden.stderr).toMatch(/^The Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
});

test('graceful deletion: a bound pod stays Terminating until a client confirms with gracePeriodSeconds=0; --force deletes at once', async () => {
  const deleting = k('delete', 'pod', 'web', '--wait=false');
  expect(deleting.stdout).toBe('pod "web" deleted\n');
  const pod = JSON.parse(ok('get', 'pod', 'web', '-o', 'json'));
  expect(pod.metadata.deletionGracePeriodSeconds).toBe(30);
  expect(ok('get', 'pods', 'web', '--no-headers')).toMatch(/^web\s+1\/1\s+Terminating\s+/);
  // The node agent's confirmation.
  const confirm = await call('DELETE', '/api/v1/namespaces/default/pods/web', { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
  expect(confirm.status).toBe(200);
  expect(k('get', 'pod', 'web').stderr).toBe('Error from server (NotFound): pods "web" not found\n');
  ok('run', 'forced', '--image=busybox', '--restart=Never');
  await call('POST', '/api/v1/namespaces/default/pods/forced/binding', { target: { kind: 'Node', name: 'node-a' } });
  expect(k('delete', 'pod', 'forced', '--grace-period=0', '--force').status).toBe(0);
  expect(k('get', 'pod', 'forced').status).not.toBe(0);
  // An unbound pod goes at once.
  ok('run', 'unbound', '--image=busybox', '--restart=Never');
  expect(ok('delete', 'pod', 'unbound', '--wait=false')).toBe('pod "unbound" deleted\n');
  expect(k('get', 'pod', 'unbound').status).not.toBe(0);
});

test('a bad pod gets its field errors as kubectl prints kube-apiserver\'s', () => {
  const bad = k('create', '-f', file('bad-pod.yaml', `apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  restartPolicy: Sometimes
  containers:
  - name: c
    volumeMounts:
    - name: nowhere
      mountPath: /data
    resources:
      requests: {cpu: "2"}
      limits: {cpu: "1"}
`));
  expect(bad.stderr).toBe(
    'The Pod "bad" is invalid: \n' +
      '* spec.containers[0].image: Required value\n' +
      '* spec.containers[0].volumeMounts[0].name: Not found: "nowhere"\n' +
      '* spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1\n' +
      '* spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"\n',
  );
});

test('pods are served in discovery with their subresources', async () => {
  const core = JSON.parse((await httpsGet(api, '/api/v1', {})).body);
  expect(core.resources.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['pods', 'pods/status', 'pods/binding', 'pods/eviction', 'nodes', 'nodes/status']));
});

test('Priority: the system classes are served; a class name becomes the pod priority; an unknown class is refused', () => {
  expect(ok('get', 'priorityclasses', '--no-headers')).toMatch(/^system-cluster-critical\s+2000000000\s+false\s+\S+\s+PreemptLowerPriority\nsystem-node-critical\s+2000001000\s+false\s+\S+\s+PreemptLowerPriority\n$/);
  ok('run', 'important', '--image=busybox', '--restart=Never', '--overrides={"spec":{"priorityClassName":"system-cluster-critical"}}');
  const pod = JSON.parse(ok('get', 'pod', 'important', '-o', 'json'));
  expect(pod.spec).toMatchObject({ priority: 2000000000, preemptionPolicy: 'PreemptLowerPriority' });
  const unknown = k('run', 'nobody', '--image=busybox', '--overrides={"spec":{"priorityClassName":"gold"}}');
  expect(unknown.stderr).toBe('Error from server (Forbidden): pods "nobody" is forbidden: no PriorityClass with name gold was found\n');
  const reserved = k('create', 'priorityclass', 'system-mine', '--value=10');
  expect(reserved.stderr).toContain("metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only");
  expect(ok('create', 'priorityclass', 'gold', '--value=1000')).toBe('priorityclass.scheduling.k8s.io/gold created\n');
});
