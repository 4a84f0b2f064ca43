// LimitRanger, ResourceQuota admission and the quota controller together over the embedded store: defaults and
// refusals on pod create, usage raised by admission and lowered by the controller after deletes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, type KubeObject } from '@cl/apimachinery';
import { SqliteStore } from '@cl/store';
import { admissionChain, builtinResources, limitRanger, resourceQuotaAdmission, startQuotaController, type QuotaController, type ResourceStore } from './index';

const dir = mkdtempSync(join(tmpdir(), 'cl-quota-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let store: SqliteStore;
let stores: ResourceStore[];
let controller: QuotaController;
const find = (plural: string) => stores.find((s) => s.def.plural === plural && s.def.group === '')!;

beforeEach(async () => {
  store = new SqliteStore(join(dir, `${Math.random()}.db`));
  stores = builtinResources(store, { eventTtlSeconds: 3600 });
  const admission = admissionChain([limitRanger(find('limitranges')), resourceQuotaAdmission(find('resourcequotas'))]);
  for (const s of stores) s.setAdmission(admission);
  await Promise.all(stores.map((s) => s.start()));
  controller = startQuotaController(find('resourcequotas'), stores, () => undefined, { debounceMs: 1 });
});
afterEach(async () => {
  controller.stop();
  for (const s of stores) s.stop();
  await store.close();
});

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return `${e.status.code} ${e.status.reason}: ${e.status.message}`;
    throw e;
  }
  throw new Error('expected a failure');
}

/** Polls until `probe` returns what is expected (the controller works on its own schedule). */
async function eventually<T>(probe: () => Promise<T>, expected: T): Promise<void> {
  for (;;) {
    const got = await probe();
    try {
      expect(got).toEqual(expected);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const pod = (name: string, resources?: object): KubeObject => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', ...(resources ? { resources } : {}) }] } });
const statusOf = async (name: string) => ((await find('resourcequotas').get('ns', name)) as { status?: unknown }).status;

test('a quota of two pods: status filled by the controller, raised on create, the third refused, lowered after a delete', async () => {
  const pods = find('pods');
  await find('resourcequotas').create('ns', { metadata: { name: 'q' }, spec: { hard: { pods: '2', 'count/configmaps': '5' } } });
  await eventually(() => statusOf('q'), { hard: { pods: '2', 'count/configmaps': '5' }, used: { pods: '0', 'count/configmaps': '0' } });
  await pods.create('ns', pod('a'));
  await pods.create('ns', pod('b'));
  expect(await statusOf('q')).toEqual({ hard: { pods: '2', 'count/configmaps': '5' }, used: { pods: '2', 'count/configmaps': '0' } });
  expect(await failure(pods.create('ns', pod('c')))).toBe('403 Forbidden: pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
  await pods.delete('ns', 'a');
  await eventually(() => statusOf('q'), { hard: { pods: '2', 'count/configmaps': '5' }, used: { pods: '1', 'count/configmaps': '0' } });
  await pods.create('ns', pod('c'));
});

test('a create that fails after admission is corrected by the next resync', async () => {
  const pods = find('pods');
  await find('resourcequotas').create('ns', { metadata: { name: 'q' }, spec: { hard: { pods: '5' } } });
  await eventually(() => statusOf('q'), { hard: { pods: '5' }, used: { pods: '0' } });
  await pods.create('ns', pod('a'));
  expect(await failure(pods.create('ns', pod('a')))).toBe('409 AlreadyExists: pods "a" already exists');
  // Upstream charges before storing, so the failed create was counted too.
  expect(await statusOf('q')).toEqual({ hard: { pods: '5' }, used: { pods: '2' } });
  await controller.syncAll();
  expect(await statusOf('q')).toEqual({ hard: { pods: '5' }, used: { pods: '1' } });
});

test('a compute quota requires the limited resources; LimitRange defaults provide them', async () => {
  const pods = find('pods');
  await find('resourcequotas').create('ns', { metadata: { name: 'compute' }, spec: { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi' } } });
  await eventually(() => statusOf('compute'), { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi' }, used: { 'requests.cpu': '0', 'limits.memory': '0' } });
  expect(await failure(pods.create('ns', pod('bare')))).toBe('403 Forbidden: pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c');
  // As decoded: the max is also the default limit of cpu.
  const limits = [{ type: 'Container', default: { memory: '256Mi', cpu: '1' }, defaultRequest: { cpu: '250m', memory: '128Mi' }, max: { cpu: '1' } }];
  await find('limitranges').create('ns', { metadata: { name: 'defaults' }, spec: { limits } });
  const created = await pods.create('ns', pod('defaulted'));
  expect((created as { spec: { containers: Array<{ resources: unknown }> } }).spec.containers[0].resources).toEqual({ limits: { memory: '256Mi', cpu: '1' }, requests: { cpu: '250m', memory: '128Mi' } });
  expect(created.metadata!.annotations).toEqual({ 'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c' });
  expect(await statusOf('compute')).toEqual({ hard: { 'requests.cpu': '1', 'limits.memory': '1Gi' }, used: { 'requests.cpu': '250m', 'limits.memory': '256Mi' } });
  expect(await failure(pods.create('ns', pod('big', { limits: { cpu: '2', memory: '128Mi' } })))).toBe('403 Forbidden: pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
});

test('finished pods stop counting for compute once the controller sees them', async () => {
  const pods = find('pods');
  await find('resourcequotas').create('ns', { metadata: { name: 'q' }, spec: { hard: { pods: '3', 'count/pods': '3' } } });
  await eventually(() => statusOf('q'), { hard: { pods: '3', 'count/pods': '3' }, used: { pods: '0', 'count/pods': '0' } });
  await pods.create('ns', pod('job'));
  await pods.update('ns', 'job', (cur) => ({ ...cur!, status: { phase: 'Succeeded' } }), { subresource: 'status' });
  await eventually(() => statusOf('q'), { hard: { pods: '3', 'count/pods': '3' }, used: { pods: '0', 'count/pods': '1' } });
});
