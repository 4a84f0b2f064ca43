import { FakeApi, recordingLog, waitUntil } from '../test/fake-api';
import { isMirrorPod, MirrorPods, mirrorPodOf } from './mirror-pods';
import type { Node, Pod } from './types';

const PODS = '/api/v1/namespaces/kube-system/pods';
const MIRROR = `${PODS}/etcd-n1`;
const node: Node = { metadata: { name: 'n1', uid: 'node-uid' }, spec: {} };

/** A static pod as the file source reads it: its hash annotation, its source, a uid of its own. */
const staticPod = (hash: string): Pod => ({
  metadata: {
    name: 'etcd-n1',
    namespace: 'kube-system',
    uid: `static-${hash}`,
    labels: { component: 'etcd' },
    annotations: { 'kubernetes.io/config.hash': hash, 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.seen': '2025-01-01T00:00:00Z' },
  },
  spec: { containers: [{ name: 'etcd', image: 'registry.k8s.io/etcd:3.5.21-0' }] },
});

let api: FakeApi;
let mirrors: MirrorPods;
let known: Node | undefined;
let lookups: { without: number; with: number };

beforeEach(() => {
  api = new FakeApi();
  known = undefined;
  lookups = { without: 0, with: 0 };
  mirrors = new MirrorPods({
    client: api,
    nodeName: 'n1',
    node: () => {
      if (known) lookups.with++;
      else lookups.without++;
      return known;
    },
    log: recordingLog(),
    retryMs: 1,
  });
});
afterEach(() => mirrors.stop());

/** The Node registers (as NodeAgent's onRegistered does): one reconcile with it, run to its end. */
async function registered(): Promise<void> {
  known = node;
  const before = lookups.with;
  mirrors.reconcile();
  await waitUntil(() => lookups.with > before, 'a reconcile that knows the Node', api);
  await mirrors.stop();
}

/** A mirror pod on the API server, as the pod watch shows it. */
const serverMirror = (hash: string, meta: Partial<Pod['metadata']> = {}) => {
  const m = mirrorPodOf(staticPod(hash), node);
  return api.put<Pod>(MIRROR, { ...m, metadata: { ...m.metadata, ...meta } });
};

test('mirrorPodOf: the static pod bound to the node, annotated with its hash, owned by the Node', () => {
  const mirror = mirrorPodOf(staticPod('h1'), node);
  expect(mirror).toEqual({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'etcd-n1',
      namespace: 'kube-system',
      labels: { component: 'etcd' },
      annotations: {
        'kubernetes.io/config.hash': 'h1',
        'kubernetes.io/config.source': 'file',
        'kubernetes.io/config.seen': '2025-01-01T00:00:00Z',
        'kubernetes.io/config.mirror': 'h1',
      },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid', controller: true }],
    },
    spec: { containers: [{ name: 'etcd', image: 'registry.k8s.io/etcd:3.5.21-0' }], nodeName: 'n1' },
  });
  expect(isMirrorPod(mirror)).toBe(true);
  expect(isMirrorPod(staticPod('h1'))).toBe(false);
});

test('a static pod without a hash annotation is mirrored under its uid', () => {
  const pod = staticPod('h1');
  delete pod.metadata.annotations!['kubernetes.io/config.hash'];
  expect(mirrorPodOf(pod, node).metadata.annotations!['kubernetes.io/config.mirror']).toBe('static-h1');
});

test('no mirror pod is made before the Node is known; once it is, one is created', async () => {
  mirrors.setStaticPods([staticPod('h1')]);
  await waitUntil(() => lookups.without > 0, 'a reconcile without the Node', api);
  expect(api.calls).toEqual([]);
  await registered();
  expect(api.calls.map((c) => `${c.method} ${c.path} ${c.code}`)).toEqual([`POST ${PODS} 201`]);
  expect(api.calls[0].body).toEqual(mirrorPodOf(staticPod('h1'), node));
  // The API server gave the mirror its own uid; mirrorOf finds it for the static pod's status.
  expect(mirrors.mirrorOf(staticPod('h1'))!.metadata.uid).toBe(api.object<Pod>(MIRROR)!.metadata.uid);
  expect(mirrors.mirrorOf(staticPod('h2'))).toBeUndefined();
});

test('a current mirror is left alone', async () => {
  mirrors.setMirrorPods([serverMirror('h1')]);
  mirrors.setStaticPods([staticPod('h1')]);
  await registered();
  expect(api.calls).toEqual([]);
});

test('an orphaned mirror (its static pod is gone) is deleted with grace 0 and its uid as precondition', async () => {
  const orphan = serverMirror('h1');
  mirrors.setMirrorPods([orphan]);
  mirrors.setStaticPods([]);
  await registered();
  expect(api.calls).toEqual([{ method: 'DELETE', path: MIRROR, body: { gracePeriodSeconds: 0, preconditions: { uid: orphan.metadata.uid } }, code: 200 }]);
  expect(api.object(MIRROR)).toBeUndefined();
});

test.each<[string, string, Partial<Pod['metadata']>]>([
  ['an outdated mirror (the manifest changed) is replaced', 'h1', {}],
  ['a mirror someone is deleting is deleted at once and made again', 'h2', { deletionTimestamp: '2025-01-01T00:05:00Z', deletionGracePeriodSeconds: 30 }],
])('%s', async (_name, mirrorHash, meta) => {
  const old = serverMirror(mirrorHash, meta);
  mirrors.setMirrorPods([old]);
  mirrors.setStaticPods([staticPod('h2')]);
  expect(mirrors.mirrorOf(staticPod('h2'))).toBeUndefined();
  await registered();
  expect(api.calls.map((c) => `${c.method} ${c.path} ${c.code}`)).toEqual([`DELETE ${MIRROR} 200`, `POST ${PODS} 201`]);
  expect(api.calls[0].body).toEqual({ gracePeriodSeconds: 0, preconditions: { uid: old.metadata.uid } });
  const now = api.object<Pod>(MIRROR)!;
  expect(now.metadata.annotations!['kubernetes.io/config.mirror']).toBe('h2');
  expect(now.metadata.uid).not.toBe(old.metadata.uid);
  expect(now.metadata.deletionTimestamp).toBeUndefined();
});

test('a mirror already gone, or already replaced by someone, does not stop the reconcile', async () => {
  const old = serverMirror('h1');
  api.remove(MIRROR);
  mirrors.setMirrorPods([old, { ...old, metadata: { ...old.metadata, name: 'other-n1' } }]);
  mirrors.setStaticPods([staticPod('h2')]);
  await registered();
  expect(api.calls.map((c) => `${c.method} ${c.path} ${c.code}`)).toEqual([`DELETE ${MIRROR} 404`, `DELETE ${PODS}/other-n1 404`, `POST ${PODS} 201`]);
});

test('a mirror that already exists when created (409) is not an error', async () => {
  serverMirror('h1');
  const log = recordingLog();
  mirrors = new MirrorPods({ client: api, nodeName: 'n1', node: () => node, log, retryMs: 1 });
  mirrors.setStaticPods([staticPod('h1')]);
  await waitUntil(() => api.callsOf('POST')[0]?.code === 409, 'the create', api);
  await mirrors.stop();
  expect(api.callsOf('POST')).toHaveLength(1);
  expect(log.lines.filter((l) => l.severity === 'E')).toEqual([]);
});

test('a failed create is retried', async () => {
  api.failNext(1, 500);
  mirrors.setStaticPods([staticPod('h1')]);
  known = node;
  mirrors.reconcile();
  await waitUntil(() => api.object(MIRROR) !== undefined, 'the mirror pod', api);
  expect(api.callsOf('POST').map((c) => c.code)).toEqual([500, 201]);
});
