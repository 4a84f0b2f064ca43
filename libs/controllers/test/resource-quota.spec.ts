// The resource quota controller against the real API server (its ResourceQuota and LimitRanger admission), run in
// this process as a controller manager runs it; the server runs only the service account controller. Usage is
// raised by admission on create and lowered by the controller after deletes, finished pods and resyncs.
import { ApiError, SharedInformers, type KubeClient } from '@cl/kube-client';
import { ResourceQuotaController, ServiceAccountsController, type Controller } from '../src';
import { clientFor, eventually, startApiserverProcess, type ApiserverProcess } from './server';

let api: ApiserverProcess;
let client: KubeClient;
let informers: SharedInformers;
let controllers: Controller[] = [];
let n = 0;
let ns = '';

beforeAll(async () => {
  api = await startApiserverProcess(['--enable-scheduler=false', '--controllers=serviceaccount']);
  client = clientFor(api);
  informers = new SharedInformers(client);
  // A short resync, so the case that needs one does not wait the upstream five minutes.
  controllers = [new ResourceQuotaController({ client, informers }, { resyncMs: 1000 }), new ServiceAccountsController({ client, informers })];
  await Promise.all(controllers.map((c) => c.start()));
});

afterAll(async () => {
  await Promise.all(controllers.map((c) => c.stop()));
  informers?.stop();
  client?.close();
  await api?.cleanup();
});

// Each case in a namespace of its own: quotas of one case never see another's objects.
beforeEach(async () => {
  ns = `q${++n}`;
  await client.create('/api/v1/namespaces', { metadata: { name: ns } });
  await eventually(() => client.get(`/api/v1/namespaces/${ns}/serviceaccounts/default`).catch(() => undefined), 'the default service account');
});

const path = (resource: string, name?: string) => `/api/v1/namespaces/${ns}/${resource}${name ? `/${name}` : ''}`;
const pod = (name: string, resources?: object) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', ...(resources ? { resources } : {}) }] } });
const statusOf = async (name: string) => (await client.get<{ status?: unknown }>(path('resourcequotas', name))).status;
const statusBecomes = (name: string, want: unknown) =>
  eventually(async () => JSON.stringify(await statusOf(name)) === JSON.stringify(want) || undefined, `quota ${name} status ${JSON.stringify(want)}`);

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return `${e.status.code} ${e.status.reason}: ${e.status.message}`;
    throw e;
  }
  throw new Error('expected a failure');
}

test('a quota of two pods: status filled by the controller, raised on create, the third refused, lowered after a delete', async () => {
  await client.create(path('resourcequotas'), { metadata: { name: 'q' }, spec: { hard: { pods: '2', 'count/configmaps': '5' } } });
  // The namespace's kube-root-ca.crt is not published here (no such controller runs), so no config map counts yet.
  await statusBecomes('q', { hard: { pods: '2', 'count/configmaps': '5' }, used: { pods: '0', 'count/configmaps': '0' } });
  await client.create(path('pods'), pod('a'));
  await client.create(path('pods'), pod('b'));
  expect(await statusOf('q')).toEqual({ hard: { pods: '2', 'count/configmaps': '5' }, used: { pods: '2', 'count/configmaps': '0' } });
  expect(await failure(client.create(path('pods'), pod('c')))).toBe('403 Forbidden: pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  // Not bound to a node: the delete is immediate.
  await client.delete(path('pods', 'a'));
  await statusBecomes('q', { hard: { pods: '2', 'count/configmaps': '5' }, used: { pods: '1', 'count/configmaps': '0' } });
  await client.create(path('pods'), pod('c'));
});

test('a create that fails after admission is corrected by the next resync', async () => {
  await client.create(path('resourcequotas'), { metadata: { name: 'q' }, spec: { hard: { pods: '5' } } });
  await statusBecomes('q', { hard: { pods: '5' }, used: { pods: '0' } });
  await client.create(path('pods'), pod('a'));
  expect(await failure(client.create(path('pods'), pod('a')))).toBe('409 AlreadyExists: pods "a" already exists');
  // Upstream charges before storing, so the failed create was counted too, until the controller recomputes.
  await statusBecomes('q', { hard: { pods: '5' }, used: { pods: '1' } });
});

test('a compute quota requires the limited resources; LimitRange defaults provide them', async () => {
  await client.create(path('resourcequotas'), { metadata: { name: 'compute' }, spec: { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi' } } });
  await statusBecomes('compute', { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi' }, used: { 'requests.cpu': '0', 'limits.memory': '0' } });
  expect(await failure(client.create(path('pods'), pod('bare')))).toBe('403 Forbidden: pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c');
  const limits = [{ type: 'Container', default: { memory: '256Mi', cpu: '1' }, defaultRequest: { cpu: '250m', memory: '128Mi' }, max: { cpu: '1' } }];
  await client.create(path('limitranges'), { metadata: { name: 'defaults' }, spec: { limits } });
  const created = await client.create<{ metadata: { annotations?: unknown }; spec: { containers: Array<{ resources: unknown }> } }>(path('pods'), pod('defaulted'));
  expect(created.spec.containers[0].resources).toEqual({ limits: { memory: '256Mi', cpu: '1' }, requests: { cpu: '250m', memory: '128Mi' } });
  expect(created.metadata.annotations).toEqual({ 'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c' });
  expect(await statusOf('compute')).toEqual({ hard: { 'requests.cpu': '1', 'limits.memory': '1Gi' }, used: { 'requests.cpu': '250m', 'limits.memory': '256Mi' } });
  expect(await failure(client.create(path('pods'), pod('big', { limits: { cpu: '2', memory: '128Mi' } })))).toBe('403 Forbidden: pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
});

test('finished pods stop counting for compute once the controller sees them', async () => {
  await client.create(path('resourcequotas'), { metadata: { name: 'q' }, spec: { hard: { pods: '3', 'count/pods': '3' } } });
  await statusBecomes('q', { hard: { pods: '3', 'count/pods': '3' }, used: { pods: '0', 'count/pods': '0' } });
  const job = await client.create<object>(path('pods'), pod('job'));
  await client.update(path('pods', 'job') + '/status', { ...job, status: { phase: 'Succeeded' } });
  await statusBecomes('q', { hard: { pods: '3', 'count/pods': '3' }, used: { pods: '0', 'count/pods': '1' } });
});
