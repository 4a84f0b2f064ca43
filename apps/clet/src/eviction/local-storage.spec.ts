import type { Pod } from '../pods/api-types';
import { hasLocalStorageLimits, localStorageViolation } from './local-storage';
import type { PodUsage } from './pod-usage';

const Mi = 1024 * 1024;
const pod = (o: { sizeLimit?: string; limits?: Array<string | undefined> } = {}): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: {
    containers: (o.limits ?? [undefined]).map((l, i) => ({ name: `c${i}`, image: 'busybox', ...(l ? { resources: { limits: { 'ephemeral-storage': l } } } : {}) })),
    volumes: [{ name: 'scratch', emptyDir: o.sizeLimit ? { sizeLimit: o.sizeLimit } : {} }],
  },
}) as unknown as Pod;
const usage = (o: { emptyDir?: number; layer?: number; logs?: number }): PodUsage => {
  const layer = o.layer ?? 0;
  const logs = o.logs ?? 0;
  return {
    containers: [{ name: 'c0', ephemeralBytes: layer + logs, logsBytes: logs }, { name: 'c1', ephemeralBytes: layer + logs, logsBytes: logs }],
    memoryBytes: 0, ephemeralBytes: (o.emptyDir ?? 0) + 2 * (layer + logs), ephemeralInodes: 0, processes: 0, emptyDirs: { scratch: o.emptyDir ?? 0 },
  };
};

test.each([
  ['no limits: nothing measured', pod(), false],
  ['an emptyDir sizeLimit', pod({ sizeLimit: '10Mi' }), true],
  ['a container ephemeral-storage limit', pod({ limits: ['1Gi'] }), true],
])('hasLocalStorageLimits: %s', (_name, p, want) => {
  expect(hasLocalStorageLimits(p)).toBe(want);
});

test.each([
  ['an emptyDir within its sizeLimit', pod({ sizeLimit: '10Mi' }), usage({ emptyDir: 10 * Mi }), false, null],
  ['an emptyDir past its sizeLimit', pod({ sizeLimit: '10Mi' }), usage({ emptyDir: 10 * Mi + 1 }), false,
    ['emptydirfs.limit', 'Usage of EmptyDir volume "scratch" exceeds the limit "10Mi". ']],
  ['the pod past its containers\' summed limit (emptyDir counts)', pod({ limits: ['10Mi', '10Mi'] }), usage({ emptyDir: 19 * Mi, layer: Mi }), false,
    ['ephemeralpodfs.limit', 'Pod ephemeral local storage usage exceeds the total limit of containers 20Mi. ']],
  ['one container with a limit: that is the pod\'s total, checked first', pod({ limits: ['2Mi', undefined] }), usage({ layer: 2 * Mi, logs: 1 }), false,
    ['ephemeralpodfs.limit', 'Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. ']],
  ['a container past its own limit while the pod is within the sum', pod({ limits: ['2Mi', '100Mi'] }), usage({ layer: 2 * Mi, logs: 1 }), false,
    ['ephemeralcontainerfs.limit', 'Container c0 exceeded its local ephemeral storage limit "2Mi". ']],
  ['with a dedicated image filesystem only logs count against the container', pod({ limits: ['2Mi', '100Mi'] }), usage({ layer: 2 * Mi, logs: 1 }), true, null],
])('localStorageViolation: %s', (_name, p, u, dedicated, want) => {
  const v = localStorageViolation(p, u, dedicated);
  expect(v && [v.signal, v.message]).toEqual(want);
});
