import type { Pod } from '../pods/api-types';
import type { PodUsage } from './pod-usage';
import { isCriticalPod, rankPods } from './ranking';

const Mi = 1024 * 1024;
const pod = (uid: string, o: { priority?: number; memory?: string; storage?: string; source?: string } = {}): Pod => ({
  metadata: { name: uid, namespace: 'default', uid, annotations: o.source ? { 'kubernetes.io/config.source': o.source } : {} },
  spec: {
    ...(o.priority !== undefined ? { priority: o.priority } : {}),
    containers: [{ name: 'c', image: 'busybox', resources: { requests: { ...(o.memory ? { memory: o.memory } : {}), ...(o.storage ? { 'ephemeral-storage': o.storage } : {}) } } }],
  },
}) as unknown as Pod;
const use = (memoryBytes: number, ephemeralBytes = 0, processes = 0, ephemeralInodes = 0): PodUsage =>
  ({ containers: [], memoryBytes, ephemeralBytes, ephemeralInodes, processes, emptyDirs: {} });

test.each([
  ['memory: a pod over its request before one within, whatever the priority', 'memory',
    [pod('within', { memory: '100Mi', priority: -10 }), pod('over', { memory: '10Mi', priority: 100 })],
    { within: use(50 * Mi), over: use(20 * Mi) }, ['over', 'within']],
  ['memory: both over, the lower priority first', 'memory',
    [pod('high', { priority: 10 }), pod('low', { priority: 1 })], { high: use(50 * Mi), low: use(10 * Mi) }, ['low', 'high']],
  ['memory: same priority, the larger usage above requests first', 'memory',
    [pod('a', { memory: '10Mi' }), pod('b', { memory: '10Mi' })], { a: use(20 * Mi), b: use(60 * Mi) }, ['b', 'a']],
  ['memory: a pod without usage counts as exceeding its request', 'memory',
    [pod('known', { memory: '100Mi' }), pod('unknown', { memory: '100Mi' })], { known: use(1 * Mi) }, ['unknown', 'known']],
  ['disk: ephemeral storage over its request first, then the larger excess', 'ephemeral-storage',
    [pod('requested', { storage: '1Gi' }), pod('small'), pod('big')], { requested: use(0, 100 * Mi), small: use(0, 1 * Mi), big: use(0, 30 * Mi) },
    ['big', 'small', 'requested']],
  ['inodes: nothing is requested, so priority, then more inodes', 'inodes',
    [pod('few'), pod('many'), pod('important', { priority: 1000 })], { few: use(0, 0, 0, 2), many: use(0, 0, 0, 50), important: use(0, 0, 0, 500) },
    ['many', 'few', 'important']],
  ['pids: priority, then more processes', 'pids',
    [pod('few'), pod('many'), pod('important', { priority: 1000 })], { few: use(0, 0, 2), many: use(0, 0, 50), important: use(0, 0, 500) },
    ['many', 'few', 'important']],
])('rankPods: %s', (_name, resource, pods, usage, want) => {
  expect(rankPods(pods, resource, new Map(Object.entries(usage))).map((p) => p.metadata.name)).toEqual(want);
});

test.each([
  ['an API pod', pod('a', { source: 'api' }), false],
  ['a pod without a source annotation', pod('a'), false],
  ['a static pod (file source)', pod('a', { source: 'file' }), true],
  ['a static pod (http source)', pod('a', { source: 'http' }), true],
  ['priority 2000000000 (system-cluster-critical)', pod('a', { priority: 2_000_000_000 }), true],
  ['priority just below', pod('a', { priority: 1_999_999_999 }), false],
])('isCriticalPod: %s', (_name, p, want) => {
  expect(isCriticalPod(p)).toBe(want);
});
