import type { Pod } from '../pods/api-types';
import { admissionMessage, binaryQuantity, decimalQuantity, evictionMessage } from './messages';
import { observe } from './signals';
import { parseThresholds } from './thresholds';

const Mi = 1024 * 1024;

test.each([
  [5 * Mi, '5Mi'],
  [31676 * 1024, '31676Ki'],
  [Mi + 1, '1048577'],
  [512, '512'],
  [0, '0'],
  [1024 * Mi, '1Gi'],
])('binaryQuantity(%d) is %s', (n, want) => {
  expect(binaryQuantity(n)).toBe(want);
});

test.each([[1000, '1k'], [12345, '12345'], [7, '7']])('decimalQuantity(%d) is %s', (n, want) => {
  expect(decimalQuantity(n)).toBe(want);
});

const pod = (requests?: Record<string, string>): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: { containers: [{ name: 'c', image: 'busybox', ...(requests ? { resources: { requests } } : {}) }] },
}) as unknown as Pod;

const none = { evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriod: {}, evictionMinimumReclaim: {} };
const obs = observe({
  memory: { totalBytes: 1024 * Mi, availableBytes: 50 * Mi },
  nodefs: { capacityBytes: 64 * Mi, availableBytes: 5 * Mi, inodes: 1000, inodesFree: 10 },
  pids: { max: 1000, available: 900 },
  time: 1,
});

test.each([
  ['absolute disk threshold, a BestEffort container over its (zero) request',
    { evictionHard: { 'nodefs.available': '10Mi' } }, 'ephemeral-storage', undefined,
    { containers: [{ name: 'c', ephemeralBytes: 40 * Mi, logsBytes: 0 }], memoryBytes: 0, ephemeralBytes: 40 * Mi, ephemeralInodes: 3, processes: 1, emptyDirs: {} },
    'The node was low on resource: ephemeral-storage. Threshold quantity: 10Mi, available: 5Mi. Container c was using 40Mi, request is 0, has larger consumption of ephemeral-storage. '],
  ['percentage threshold of the capacity; a container within its request is not named',
    { evictionHard: { 'nodefs.available': '50%' } }, 'ephemeral-storage', { 'ephemeral-storage': '100Mi' },
    { containers: [{ name: 'c', ephemeralBytes: 40 * Mi, logsBytes: 0 }], memoryBytes: 0, ephemeralBytes: 40 * Mi, ephemeralInodes: 3, processes: 1, emptyDirs: {} },
    'The node was low on resource: ephemeral-storage. Threshold quantity: 32Mi, available: 5Mi. '],
  ['memory with its request shown as given',
    { evictionHard: { 'memory.available': '100Mi' } }, 'memory', { memory: '10Mi' },
    { containers: [{ name: 'c', memoryBytes: 20 * Mi, logsBytes: 0 }], memoryBytes: 20 * Mi, ephemeralBytes: 0, ephemeralInodes: 0, processes: 1, emptyDirs: {} },
    'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container c was using 20Mi, request is 10Mi, has larger consumption of memory. '],
  ['inodes print as counts and name no container', { evictionHard: { 'nodefs.inodesFree': '5%' } }, 'inodes', undefined,
    { containers: [{ name: 'c', ephemeralBytes: 1, logsBytes: 0 }], memoryBytes: 0, ephemeralBytes: 1, ephemeralInodes: 3, processes: 1, emptyDirs: {} },
    'The node was low on resource: inodes. Threshold quantity: 50, available: 10. '],
  ['no usage known: the node part only', { evictionHard: { 'nodefs.available': '10Mi' } }, 'ephemeral-storage', undefined, undefined,
    'The node was low on resource: ephemeral-storage. Threshold quantity: 10Mi, available: 5Mi. '],
])('evictionMessage: %s', (_name, settings, resource, requests, usage, want) => {
  expect(evictionMessage(resource, pod(requests), usage, parseThresholds({ ...none, ...settings }), obs)).toBe(want);
});

test.each([
  [['DiskPressure'], 'The node had condition: [DiskPressure]. '],
  [['MemoryPressure', 'DiskPressure'], 'The node had condition: [MemoryPressure DiskPressure]. '],
] as const)('admissionMessage(%j)', (conditions, want) => {
  expect(admissionMessage(conditions)).toBe(want);
});
