import type { Pod } from '../pods/api-types';
import { qosClass } from '../pods/runtime-spec';
import { milliCpuToQuota, milliCpuToShares, podCgroupResources } from './resources';

const pod = (containers: object[], initContainers: object[] = []): Pod =>
  ({ metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers, initContainers } }) as unknown as Pod;
const c = (limits?: object, requests?: object) => ({ name: 'c', image: 'busybox', resources: { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) } });
const opts = { cpuCFSQuota: true, cpuPeriodUs: 100_000, podPidsLimit: -1 };
const Mi = 1024 * 1024;

test.each([
  ['Guaranteed: shares, quota, period and memory from its limits', pod([c({ cpu: '500m', memory: '64Mi' })]), opts,
    { cpuShares: 512, cpuQuota: 50_000, cpuPeriod: 100_000, memoryLimit: 64 * Mi }],
  ['Guaranteed, two containers add up', pod([c({ cpu: '1', memory: '64Mi' }), c({ cpu: '250m', memory: '32Mi' })]), opts,
    { cpuShares: 1280, cpuQuota: 125_000, cpuPeriod: 100_000, memoryLimit: 96 * Mi }],
  ['Burstable with every limit: quota and memory too', pod([c({ cpu: '1', memory: '64Mi' }, { cpu: '100m', memory: '16Mi' })]), opts,
    { cpuShares: 102, cpuQuota: 100_000, cpuPeriod: 100_000, memoryLimit: 64 * Mi }],
  ['Burstable, one container without limits: shares only', pod([c({ cpu: '1', memory: '64Mi' }), c(undefined, { cpu: '200m' })]), opts,
    { cpuShares: 1228 }],
  ['Burstable, memory limit only', pod([c({ memory: '64Mi' }, { memory: '32Mi' })]), opts, { cpuShares: 2, memoryLimit: 64 * Mi }],
  ['BestEffort: the minimum shares', pod([c()]), opts, { cpuShares: 2 }],
  ['--cpu-cfs-quota=false lifts the quota', pod([c({ cpu: '500m', memory: '64Mi' })]), { ...opts, cpuCFSQuota: false },
    { cpuShares: 512, cpuQuota: -1, cpuPeriod: 100_000, memoryLimit: 64 * Mi }],
  ['--cpu-cfs-quota-period scales the quota', pod([c({ cpu: '500m', memory: '64Mi' })]), { ...opts, cpuPeriodUs: 50_000 },
    { cpuShares: 512, cpuQuota: 25_000, cpuPeriod: 50_000, memoryLimit: 64 * Mi }],
  ['--pod-max-pids', pod([c()]), { ...opts, podPidsLimit: 42 }, { cpuShares: 2, pidsLimit: 42 }],
  ['a larger init container wins', pod([c({ cpu: '100m', memory: '16Mi' })], [c({ cpu: '2', memory: '128Mi' })]), opts,
    { cpuShares: 2048, cpuQuota: 200_000, cpuPeriod: 100_000, memoryLimit: 128 * Mi }],
])('%s', (_name, p, o, want) => {
  expect(podCgroupResources(p, qosClass(p), o)).toEqual(want);
});

test('shares and quota conversions keep the kernel bounds', () => {
  expect(milliCpuToShares(0)).toBe(2);
  expect(milliCpuToShares(1)).toBe(2);
  expect(milliCpuToShares(1000)).toBe(1024);
  expect(milliCpuToShares(1_000_000)).toBe(262144);
  expect(milliCpuToQuota(0, 100_000)).toBe(0);
  expect(milliCpuToQuota(1, 100_000)).toBe(1000);
  expect(milliCpuToQuota(1500, 100_000)).toBe(150_000);
});
