// The namespace, service account and garbage collector controllers against the real API server, run in this
// process on one SharedInformers as a controller manager runs them (the server runs none of its own). Everything
// asserted is what a user sees through the API.
import { isNotFound, SharedInformers, type KubeClient } from '@cl/kube-client';
import { GarbageCollector, NamespaceController, ServiceAccountsController, type Controller, type NamespaceCondition } from '../src';
import { clientFor, eventually, startApiserverProcess, type ApiserverProcess } from './server';

interface Meta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  finalizers?: string[];
  deletionTimestamp?: string;
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; blockOwnerDeletion?: boolean }>;
}
interface Obj {
  metadata: Meta;
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

let api: ApiserverProcess;
let client: KubeClient;
let informers: SharedInformers;
let controllers: Controller[] = [];
const log: string[] = [];

beforeAll(async () => {
  api = await startApiserverProcess(['--enable-scheduler=false', '--controllers=']);
  client = clientFor(api);
  informers = new SharedInformers(client);
  const ctx = { client, informers, log: (msg: string, fields?: Record<string, unknown>) => void log.push(`${msg} ${JSON.stringify(fields ?? {})}`) };
  controllers = [new ServiceAccountsController(ctx), new NamespaceController(ctx), new GarbageCollector(ctx)];
  await Promise.all(controllers.map((c) => c.start()));
});

afterAll(async () => {
  await Promise.all(controllers.map((c) => c.stop()));
  informers?.stop();
  client?.close();
  await api?.cleanup();
});

const gone = async (path: string) => client.get(path).then(() => false, (e) => isNotFound(e));
const ns = (name: string) => `/api/v1/namespaces/${name}`;
const cms = (namespace: string) => `${ns(namespace)}/configmaps`;
const ownerRef = (o: Obj, extra: { blockOwnerDeletion?: boolean } = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name, uid: o.metadata.uid, ...extra });

async function namespace(name: string): Promise<void> {
  await client.create('/api/v1/namespaces', { metadata: { name } });
  // Pods and everything else wait for the namespace's service account; so do these tests.
  await eventually(() => client.get(`${ns(name)}/serviceaccounts/default`).catch(() => undefined), `the default service account of ${name}`);
}

describe('service accounts', () => {
  test('every namespace gets `default`, and a deleted one comes back', async () => {
    await namespace('sa-a');
    const first = await client.get<Obj>(`${ns('sa-a')}/serviceaccounts/default`);
    await client.delete(`${ns('sa-a')}/serviceaccounts/default`);
    const again = await eventually(() => client.get<Obj>(`${ns('sa-a')}/serviceaccounts/default`).catch(() => undefined), 'the service account to come back');
    expect(again.metadata.uid).not.toBe(first.metadata.uid);
  });

  test('the system namespaces have theirs', async () => {
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      await eventually(() => client.get(`${ns(name)}/serviceaccounts/default`).catch(() => undefined), `default in ${name}`);
    }
  });
});

describe('namespace deletion', () => {
  test('a deleted namespace is emptied; content with a finalizer holds it, with conditions saying why, until the finalizer goes', async () => {
    await namespace('doomed');
    await client.create(cms('doomed'), { metadata: { name: 'plain' } });
    await client.create(cms('doomed'), { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await client.create(`${ns('doomed')}/secrets`, { metadata: { name: 's' }, data: {} });
    await client.create('/apis/apps/v1/namespaces/doomed/deployments', {
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    await client.delete(ns('doomed'));

    const stuck = await eventually(async () => {
      const n = await client.get<Obj>(ns('doomed'));
      return n.status?.conditions?.find((c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True') ? n : undefined;
    }, 'the namespace to report its remaining finalizer');
    expect(stuck.status?.phase).toBe('Terminating');
    const byType = Object.fromEntries((stuck.status?.conditions ?? []).map((c) => [c.type, `${c.status} ${c.reason}: ${c.message}`]));
    expect(byType).toEqual({
      NamespaceDeletionDiscoveryFailure: 'False ResourcesDiscovered: All resources successfully discovered',
      NamespaceDeletionGroupVersionParsingFailure: 'False ParsedGroupVersions: All legacy kube types successfully parsed',
      NamespaceDeletionContentFailure: 'False ContentDeleted: All content successfully deleted, may be waiting on finalization',
      NamespaceContentRemaining: 'True SomeResourcesRemain: Some resources are remaining: configmaps. has 1 resource instances',
      NamespaceFinalizersRemaining: 'True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    });
    // Everything without a finalizer is gone already.
    for (const path of [`${cms('doomed')}/plain`, `${ns('doomed')}/secrets/s`, '/apis/apps/v1/namespaces/doomed/deployments/web', `${ns('doomed')}/serviceaccounts/default`]) expect(await gone(path)).toBe(true);

    const held = await client.get<Obj>(`${cms('doomed')}/held`);
    await client.update(`${cms('doomed')}/held`, { ...held, metadata: { ...held.metadata, finalizers: [] } });
    await eventually(() => gone(ns('doomed')), 'the namespace to go');
  });

  test('nothing is created into a namespace being deleted: the service account controller leaves it alone', async () => {
    await namespace('leaving');
    await client.delete(ns('leaving'));
    await eventually(() => gone(ns('leaving')), 'the namespace to go');
    expect(log.filter((l) => l.startsWith('Syncing service accounts failed') && l.includes('leaving'))).toEqual([]);
  });
});

describe('garbage collector', () => {
  const NS = 'gc';
  beforeAll(() => namespace(NS));

  async function ownerAndChild(owner: string, child: string, extra: { blockOwnerDeletion?: boolean } = {}): Promise<[Obj, Obj]> {
    const o = await client.create<Obj>(cms(NS), { metadata: { name: owner } });
    // A different kind as the dependent: the graph spans resources.
    const c = await client.create<Obj>(`${ns(NS)}/secrets`, { metadata: { name: child, ownerReferences: [ownerRef(o, extra)] } });
    return [o, c];
  }

  test('Background: the owner goes at once, then its dependents', async () => {
    await ownerAndChild('bg-owner', 'bg-child');
    await client.delete(`${cms(NS)}/bg-owner`, { propagationPolicy: 'Background' });
    expect(await gone(`${cms(NS)}/bg-owner`)).toBe(true);
    await eventually(() => gone(`${ns(NS)}/secrets/bg-child`), 'the dependent to go');
  });

  test('Foreground: a blocking dependent goes first, then the owner', async () => {
    await ownerAndChild('fg-owner', 'fg-child', { blockOwnerDeletion: true });
    // A finalizer keeps the dependent (deleted, not yet gone) so the owner can be seen waiting.
    const child = await client.get<Obj>(`${ns(NS)}/secrets/fg-child`);
    await client.update(`${ns(NS)}/secrets/fg-child`, { ...child, metadata: { ...child.metadata, finalizers: ['example.com/hold'] } });
    const deleted = await client.delete<Obj>(`${cms(NS)}/fg-owner`, { propagationPolicy: 'Foreground' });
    expect(deleted.metadata.finalizers).toEqual(['foregroundDeletion']);
    const going = await eventually(async () => {
      const c = await client.get<Obj>(`${ns(NS)}/secrets/fg-child`);
      return c.metadata.deletionTimestamp ? c : undefined;
    }, 'the dependent to be deleted');
    expect((await client.get<Obj>(`${cms(NS)}/fg-owner`)).metadata.finalizers).toEqual(['foregroundDeletion']);
    await client.update(`${ns(NS)}/secrets/fg-child`, { ...going, metadata: { ...going.metadata, finalizers: [] } });
    await eventually(() => gone(`${cms(NS)}/fg-owner`), 'the owner to go after its dependent');
  });

  test('Orphan: the dependents stay, without the reference, and the owner goes', async () => {
    const [, child] = await ownerAndChild('or-owner', 'or-child');
    await client.delete(`${cms(NS)}/or-owner`, { propagationPolicy: 'Orphan' });
    await eventually(() => gone(`${cms(NS)}/or-owner`), 'the owner to go');
    const kept = await client.get<Obj>(`${ns(NS)}/secrets/or-child`);
    expect(kept.metadata.uid).toBe(child.metadata.uid);
    expect(kept.metadata.ownerReferences ?? []).toEqual([]);
  });

  test('a dependent created with an owner that does not exist is collected', async () => {
    await client.create(`${ns(NS)}/secrets`, { metadata: { name: 'dangling', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never', uid: '00000000-0000-0000-0000-000000000001' }] } });
    await eventually(() => gone(`${ns(NS)}/secrets/dangling`), 'the dependent of a missing owner to go');
  });

  test('a dependent with another live owner stays, with only the live reference', async () => {
    const a = await client.create<Obj>(cms(NS), { metadata: { name: 'two-a' } });
    const b = await client.create<Obj>(cms(NS), { metadata: { name: 'two-b' } });
    await client.create(`${ns(NS)}/secrets`, { metadata: { name: 'two-child', ownerReferences: [ownerRef(a), ownerRef(b)] } });
    await client.delete(`${cms(NS)}/two-a`);
    const kept = await eventually(async () => {
      const c = await client.get<Obj>(`${ns(NS)}/secrets/two-child`);
      return c.metadata.ownerReferences?.length === 1 ? c : undefined;
    }, 'the reference to the gone owner to be dropped');
    expect(kept.metadata.ownerReferences?.map((r) => r.name)).toEqual(['two-b']);
  });

  test('a chain goes from the leaves up under Foreground: owner -> child -> grandchild', async () => {
    const [, child] = await ownerAndChild('chain-owner', 'chain-child', { blockOwnerDeletion: true });
    await client.create(cms(NS), { metadata: { name: 'chain-grandchild', ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'chain-child', uid: child.metadata.uid, blockOwnerDeletion: true }] } });
    await client.delete(`${cms(NS)}/chain-owner`, { propagationPolicy: 'Foreground' });
    await eventually(async () => (await gone(`${cms(NS)}/chain-owner`)) && (await gone(`${ns(NS)}/secrets/chain-child`)) && (await gone(`${cms(NS)}/chain-grandchild`)), 'the whole chain to go');
  });
});
