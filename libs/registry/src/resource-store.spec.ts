// The generic store over the embedded store: server-set fields, optimistic concurrency, finalizers, paging at
// one revision, and the namespace lifecycle (admission and controller) it is used with.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, type KubeObject } from '@cl/apimachinery';
import { LeaseManager, SqliteStore, type Store, type StoreWatch, type WatchOptions } from '@cl/store';
import { builtinResources, namespaceLifecycle, admissionChain, ResourceStore as ResourceStoreClass, type ResourceStore } from './index';

const dir = mkdtempSync(join(tmpdir(), 'cl-resource-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let store: SqliteStore;
let stores: ResourceStore[];
let cms: ResourceStore;
let namespaces: ResourceStore;

beforeEach(async () => {
  store = new SqliteStore(join(dir, `${Math.random()}.db`));
  stores = builtinResources(store, { eventTtlSeconds: 3600 });
  cms = stores.find((s) => s.def.plural === 'configmaps')!;
  namespaces = stores.find((s) => s.def.plural === 'namespaces')!;
  const admission = admissionChain([namespaceLifecycle(namespaces)]);
  for (const s of stores) s.setAdmission(admission);
  await Promise.all(stores.map((s) => s.start()));
  await namespaces.create('', { metadata: { name: 'default' } });
});
afterEach(async () => {
  for (const s of stores) s.stop();
  await store.close();
});

/** The ApiError a call fails with, as `code reason: message`. */
async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return `${e.status.code} ${e.status.reason}: ${e.status.message}`;
    throw e;
  }
  throw new Error('expected a failure');
}

const cm = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject => ({ metadata: { name, ...(labels ? { labels } : {}) }, data });

test('create sets uid, creationTimestamp and resourceVersion; a second create of the name is AlreadyExists', async () => {
  const created = await cms.create('default', cm('a', { k: 'v' }));
  expect(created.metadata).toMatchObject({ name: 'a', namespace: 'default', uid: expect.stringMatching(/^[0-9a-f-]{36}$/), resourceVersion: expect.stringMatching(/^\d+$/) });
  expect(created.metadata!.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(await cms.get('default', 'a')).toEqual(created);
  expect(await failure(cms.create('default', cm('a')))).toBe('409 AlreadyExists: configmaps "a" already exists');
});

test('generateName gets a random suffix; a missing name is a field error', async () => {
  const a = await cms.create('default', { metadata: { generateName: 'gen-' } });
  expect(a.metadata!.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  expect(await failure(cms.create('default', { metadata: {} }))).toBe('422 Invalid: ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
});

test('update: a stale resourceVersion conflicts, none is unconditional, identity fields are kept', async () => {
  const a = await cms.create('default', cm('a', { v: '1' }));
  const { object: b } = await cms.update('default', 'a', (cur) => ({ ...cur!, data: { v: '2' } }));
  expect(Number(b.metadata!.resourceVersion)).toBeGreaterThan(Number(a.metadata!.resourceVersion));
  expect(await failure(cms.update('default', 'a', () => ({ ...a, data: { v: '3' } })))).toBe(
    '409 Conflict: Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
  );
  const { object: c } = await cms.update('default', 'a', () => ({ metadata: { name: 'a', uid: undefined }, data: { v: '4' } }));
  expect(c.metadata!.uid).toBe(a.metadata!.uid);
  expect(c.metadata!.creationTimestamp).toBe(a.metadata!.creationTimestamp);
  // Writing the same object again is not a write: no new revision.
  const { object: d } = await cms.update('default', 'a', (cur) => cur!);
  expect(d.metadata!.resourceVersion).toBe(c.metadata!.resourceVersion);
});

// A PUT body's resourceVersion: "0" and none are the same to upstream's versioner (0), an unconditional update where
// the kind allows one; any other value is a precondition.
test.each([
  ['absent', undefined, { data: { v: '2' } }],
  ['"0"', '0', { data: { v: '2' } }],
  ['stale', 'stale', '409 Conflict: Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again'],
  ['current', 'current', { data: { v: '2' } }],
])('update with a resourceVersion %s', async (_name, rv, want) => {
  const a = await cms.create('default', cm('a', { v: '1' }));
  await cms.update('default', 'a', (cur) => ({ ...cur!, data: { v: '1.5' } }));
  const current = (await cms.get('default', 'a')).metadata!.resourceVersion;
  const resourceVersion = rv === 'stale' ? a.metadata!.resourceVersion : rv === 'current' ? current : rv;
  const put = cms.update('default', 'a', () => ({ metadata: { name: 'a', resourceVersion }, data: { v: '2' } }));
  if (typeof want === 'string') return expect(await failure(put)).toBe(want);
  const { object } = await put;
  expect(object).toMatchObject(want);
  expect(Number(object.metadata!.resourceVersion)).toBeGreaterThan(Number(current));
});

test('a kind that allows no unconditional update refuses a PUT without a resourceVersion as upstream; "0" creates where a PUT may create', async () => {
  const strict = new ResourceStoreClass(cms.def, store, { ...cms.strategy, allowUnconditionalUpdate: false, allowCreateOnUpdate: true });
  await strict.start();
  try {
    const { object: made, created } = await strict.update('default', 'strict', () => ({ metadata: { name: 'strict', resourceVersion: '0' }, data: {} }));
    expect(created).toBe(true);
    for (const resourceVersion of [undefined, '0']) {
      expect(await failure(strict.update('default', 'strict', () => ({ metadata: { name: 'strict', resourceVersion }, data: { v: '1' } })))).toBe(
        '422 Invalid: configmaps "strict" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      );
    }
    const { object } = await strict.update('default', 'strict', () => ({ metadata: { name: 'strict', resourceVersion: made.metadata!.resourceVersion }, data: { v: '1' } }));
    expect(object.data).toEqual({ v: '1' });
  } finally {
    strict.stop();
  }
});

test('a create with resourceVersion "0" is a create; any other resourceVersion is refused', async () => {
  const made = await cms.create('default', { metadata: { name: 'zero', resourceVersion: '0' } });
  expect(made.metadata!.resourceVersion).not.toBe('0');
  expect(await failure(cms.create('default', { metadata: { name: 'seven', resourceVersion: '7' } }))).toBe('400 BadRequest: resourceVersion should not be set on objects to be created');
});

test('finalizers keep a deleted object with a deletionTimestamp; removing the last one removes it', async () => {
  await cms.create('default', { metadata: { name: 'held', finalizers: ['example.com/x'] } });
  const r = await cms.delete('default', 'held');
  expect(r.deleted).toBe(false);
  expect(r.object.metadata!.deletionTimestamp).toEqual(expect.any(String));
  expect(await failure(cms.update('default', 'held', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: ['example.com/x', 'example.com/y'] } })))).toMatch(
    /^422 Invalid: ConfigMap "held" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted/,
  );
  await cms.update('default', 'held', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }));
  expect(await failure(cms.get('default', 'held'))).toBe('404 NotFound: configmaps "held" not found');
});

test('delete preconditions on uid and resourceVersion', async () => {
  const a = await cms.create('default', cm('a'));
  expect(await failure(cms.delete('default', 'a', { preconditions: { uid: 'other' } }))).toBe(`409 Conflict: Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: other, UID in object meta: ${a.metadata!.uid}`);
  expect(await failure(cms.delete('default', 'a', { propagationPolicy: 'Sideways' as never }))).toBe(
    '422 Invalid: DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"',
  );
  expect((await cms.delete('default', 'a', { preconditions: { uid: a.metadata!.uid } })).deleted).toBe(true);
});

test('paged lists read one revision: later writes do not show up in later pages; selectors skip non-matching keys', async () => {
  for (let i = 0; i < 7; i++) await cms.create('default', cm(`cm-${i}`, {}, { parity: i % 2 ? 'odd' : 'even' }));
  const first = await cms.list('default', { limit: 3 });
  expect(first.items.map((o) => o.metadata!.name)).toEqual(['cm-0', 'cm-1', 'cm-2']);
  await cms.create('default', cm('cm-3a'));
  await cms.delete('default', 'cm-4');
  const second = await cms.list('default', { limit: 3, continue: first.continue });
  expect(second.items.map((o) => o.metadata!.name)).toEqual(['cm-3', 'cm-4', 'cm-5']);
  expect(second.resourceVersion).toBe(first.resourceVersion);
  const third = await cms.list('default', { limit: 3, continue: second.continue });
  expect(third.items.map((o) => o.metadata!.name)).toEqual(['cm-6']);
  expect(third.continue).toBeUndefined();
  const odd = await cms.list('default', { limit: 2, filter: (o) => o.metadata?.labels?.parity === 'odd' });
  expect(odd.items.map((o) => o.metadata!.name)).toEqual(['cm-1', 'cm-3']);
  const rest = await cms.list('default', { limit: 2, continue: odd.continue, filter: (o) => o.metadata?.labels?.parity === 'odd' });
  expect(rest.items.map((o) => o.metadata!.name)).toEqual(['cm-5']);
});

test('a continue token whose revision was compacted is 410 Expired; resourceVersionMatch without resourceVersion is invalid', async () => {
  for (let i = 0; i < 3; i++) await cms.create('default', cm(`cm-${i}`));
  const first = await cms.list('default', { limit: 1 });
  const { revision } = await store.put('/unrelated', 'x');
  await store.compact(revision);
  expect(await failure(cms.list('default', { limit: 1, continue: first.continue }))).toMatch(/^410 Expired: The provided continue parameter is too old/);
  expect(await failure(cms.list('default', { resourceVersionMatch: 'NotOlderThan' }))).toBe(
    '422 Invalid: ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
  );
});

/**
 * A configmap store (`writer`) and a second one on the same file (`reader`) whose watch cache follows a store watch
 * that stops delivering while `frozen` (an etcd watch behind a busy etcd); `gets` counts the reader's store reads.
 */
async function withLaggingReader(run: (t: { writer: ResourceStore; reader: ResourceStore; freeze: () => void; gets: () => number }) => Promise<void>) {
  const real = new SqliteStore(join(dir, `${Math.random()}.db`));
  let frozen = false;
  let gets = 0;
  const overrides: Partial<Store> = {
    get(key: string) {
      gets++;
      return real.get(key);
    },
    watch(prefix: string, opts?: WatchOptions): StoreWatch {
      const inner = real.watch(prefix, opts);
      const iterate = async function* () {
        for await (const b of inner) {
          while (frozen) await new Promise((r) => setTimeout(r, 50));
          yield b;
        }
      };
      return Object.assign(iterate(), { ready: inner.ready, requestProgress: () => inner.requestProgress(), close: () => inner.close() });
    },
  };
  // Every other call goes to the real store, on the real store (its writes share one commit queue).
  const lagging = new Proxy(real, {
    get: (target, prop) => {
      const own = overrides[prop as keyof Store];
      if (own) return own;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Store;
  const writer = builtinResources(real, { eventTtlSeconds: 3600 }).find((s) => s.def.plural === 'configmaps')!;
  const reader = builtinResources(lagging, { eventTtlSeconds: 3600 }).find((s) => s.def.plural === 'configmaps')!;
  await Promise.all([writer.start(), reader.start()]);
  try {
    await run({ writer, reader, freeze: () => (frozen = true), gets: () => gets });
  } finally {
    frozen = false;
    writer.stop();
    reader.stop();
    await real.close();
  }
}

test('a consistent list the cache cannot serve in time is read from the store (as upstream falls back); an explicit resourceVersion stays a 504', () =>
  withLaggingReader(async ({ writer, reader, freeze }) => {
    await writer.create('default', cm('early'));
    expect((await reader.list('default')).items.map((o) => o.metadata?.name)).toEqual(['early']);
    freeze();
    const late = await writer.create('default', cm('late'));
    const consistent = await reader.list('default');
    expect(consistent.items.map((o) => o.metadata?.name)).toEqual(['early', 'late']);
    expect(consistent.fromCache).toBeUndefined();
    expect(await failure(reader.list('default', { resourceVersion: late.metadata!.resourceVersion, resourceVersionMatch: 'NotOlderThan' }))).toMatch(/^504 Timeout: Timeout: Too large resource version/);
  }));

test('an update starts from the watch cache\'s copy: no store read while the copy is current', () =>
  withLaggingReader(async ({ writer, reader, gets }) => {
    const created = await writer.create('default', cm('a', { v: '1' }));
    await reader.cache.waitUntilFresh(Number(created.metadata!.resourceVersion));
    const { object } = await reader.update('default', 'a', (cur) => ({ ...cur!, data: { ...(cur!.data as Record<string, string>), w: '2' } }));
    expect(gets()).toBe(0);
    expect((await writer.get('default', 'a')).data).toEqual({ v: '1', w: '2' });
    expect(object.metadata!.resourceVersion).toBe((await writer.get('default', 'a')).metadata!.resourceVersion);
  }));

test('an update from a copy behind the store applies to the newest state, as a read from the store would', () =>
  withLaggingReader(async ({ writer, reader, freeze }) => {
    const created = await writer.create('default', cm('a', { v: '1' }));
    await reader.cache.waitUntilFresh(Number(created.metadata!.resourceVersion));
    freeze();
    // Unconditional: applied to the store's state (v=2), not to the copy's (v=1).
    const { object: v2 } = await writer.update('default', 'a', (cur) => ({ ...cur!, data: { v: '2' } }));
    await reader.update('default', 'a', (cur) => ({ ...cur!, data: { ...(cur!.data as Record<string, string>), w: 'x' } }));
    expect((await writer.get('default', 'a')).data).toEqual({ v: '2', w: 'x' });
    // A resourceVersion precondition is judged against the store's state: the newest passes, the copy's is a 409.
    const newest = (await writer.get('default', 'a')).metadata!.resourceVersion;
    await reader.update('default', 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: newest }, data: { v: '3' } }));
    expect(await failure(reader.update('default', 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: created.metadata!.resourceVersion }, data: { v: '4' } })))).toBe(
      '409 Conflict: Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    // Back to the copy's content is a change from the store's state: written, not taken for a no-op.
    await reader.update('default', 'a', (cur) => ({ ...cur!, data: { v: '1' } }));
    expect((await writer.get('default', 'a')).data).toEqual({ v: '1' });
    expect(v2.data).toEqual({ v: '2' });
    // Deleted in the store while the copy still holds it: not found.
    await writer.delete('default', 'a');
    expect(await failure(reader.update('default', 'a', (cur) => ({ ...cur!, data: { v: '5' } })))).toBe('404 NotFound: configmaps "a" not found');
  }));

test('NamespaceLifecycle: no creates in a missing namespace; a deleted one turns Terminating and refuses new content', async () => {
  expect(await failure(cms.create('nowhere', cm('a')))).toBe('404 NotFound: namespaces "nowhere" not found');
  await namespaces.create('', { metadata: { name: 'doomed' } });
  await cms.create('doomed', cm('a'));
  const deleted = await namespaces.delete('', 'doomed');
  expect(deleted.object.status).toEqual({ phase: 'Terminating' });
  expect(await failure(cms.create('doomed', cm('b')))).toBe('403 Forbidden: configmaps "b" is forbidden: unable to create new content in namespace doomed because it is being terminated');
  // Emptying it and clearing `kubernetes` is the namespace controller's (@cl/controllers); clearing it removes it.
  await namespaces.update('', 'doomed', (cur) => ({ ...cur!, spec: { finalizers: [] } }), { subresource: 'finalize' });
  expect(await failure(namespaces.get('', 'doomed'))).toBe('404 NotFound: namespaces "doomed" not found');
});

// What each policy leaves for the garbage collector (@cl/controllers), whose behaviour its own suite shows.
test.each([
  ['Background', true, undefined],
  ['Foreground', false, ['foregroundDeletion']],
  ['Orphan', false, ['orphan']],
])('propagationPolicy %s: removed at once %s, finalizers %j', async (policy, removed, finalizers) => {
  const name = `owner-${String(policy).toLowerCase()}`;
  await cms.create('default', cm(name));
  const r = await cms.delete('default', name, { propagationPolicy: policy as 'Background' });
  expect(r.deleted).toBe(removed);
  if (!removed) expect(r.object.metadata!.finalizers).toEqual(finalizers);
});

async function waitUntil(check: () => Promise<boolean>) {
  for (let i = 0; i < 200; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition never held');
}

test('events live for --event-ttl: each is written under a store lease and goes when it expires', async () => {
  const short = builtinResources(store, { eventTtlSeconds: 1, leases: new LeaseManager(store) });
  const events = short.find((s) => s.def.plural === 'events' && s.def.group === '')!;
  try {
    await events.create('default', { metadata: { name: 'e1' }, reason: 'Tested', involvedObject: { kind: 'ConfigMap', name: 'a', namespace: 'default' } });
    expect((await store.get('/events/default/e1'))!.lease).not.toBe(0);
    await waitUntil(async () => (await failure(events.get('default', 'e1')).catch(() => '')) === '404 NotFound: events "e1" not found');
  } finally {
    for (const s of short) s.stop();
  }
});
