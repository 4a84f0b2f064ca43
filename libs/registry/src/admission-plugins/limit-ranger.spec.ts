// LimitRanger: the defaults a LimitRange gives containers (and the annotation naming them), and the pods its
// min, max and ratio refuse, with upstream's messages.
import type { KubeObject } from '@cl/apimachinery';
import { aggregateMessage, applyLimitRangeDefaults, limitRangeViolations } from './limit-ranger';

const lr = (...limits: object[]): KubeObject => ({ metadata: { name: 'lr', namespace: 'ns' }, spec: { limits } });
const container = (name: string, resources?: object) => ({ name, image: 'busybox', ...(resources ? { resources } : {}) });
const pod = (containers: object[], initContainers?: object[]): KubeObject => ({ metadata: { name: 'p', namespace: 'ns' }, spec: { containers, ...(initContainers ? { initContainers } : {}) } });

const CONTAINER_DEFAULTS = lr({ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } });

test.each([
  [
    'a container without resources gets both',
    pod([container('c')]),
    [{ requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } }],
    'LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c',
  ],
  [
    'what a container sets is kept',
    pod([container('c', { requests: { cpu: '50m' }, limits: { cpu: '1' } })]),
    [{ requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } }],
    'LimitRanger plugin set: memory request for container c; memory limit for container c',
  ],
  [
    'init containers too',
    pod([container('c', { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } })], [container('init')]),
    [{ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } }],
    'LimitRanger plugin set: cpu, memory request for init container init; cpu, memory limit for init container init',
  ],
])('defaults: %s', (_name, p, resources, annotation) => {
  applyLimitRangeDefaults(CONTAINER_DEFAULTS, p);
  expect((p as { spec: { containers: Array<{ resources: unknown }> } }).spec.containers.map((c) => c.resources)).toEqual(resources);
  expect(p.metadata!.annotations?.['kubernetes.io/limit-ranger']).toBe(annotation);
});

test('a LimitRange without Container defaults leaves the pod alone', () => {
  const p = pod([container('c')]);
  applyLimitRangeDefaults(lr({ type: 'Pod', max: { cpu: '2' } }), p);
  expect(p).toEqual(pod([container('c')]));
});

const res = (requests: Record<string, string>, limits: Record<string, string> = {}) => ({ requests, limits });

test.each([
  ['within every bound', lr({ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } }), pod([container('c', res({ cpu: '200m' }, { cpu: '500m' }))]), []],
  ['a request below min', lr({ type: 'Container', min: { cpu: '100m' } }), pod([container('c', res({ cpu: '50m' }))]), ['minimum cpu usage per Container is 100m, but request is 50m']],
  ['a limit below min', lr({ type: 'Container', min: { cpu: '100m' } }), pod([container('c', res({ cpu: '100m' }, { cpu: '50m' }))]), ['minimum cpu usage per Container is 100m, but limit is 50m']],
  ['no request under a min', lr({ type: 'Container', min: { memory: '1Mi' } }), pod([container('c', res({}))]), ['minimum memory usage per Container is 1Mi.  No request is specified']],
  ['a limit above max', lr({ type: 'Container', max: { cpu: '1' } }), pod([container('c', res({ cpu: '1' }, { cpu: '2' }))]), ['maximum cpu usage per Container is 1, but limit is 2']],
  ['a request above max', lr({ type: 'Container', max: { cpu: '1' } }), pod([container('c', res({ cpu: '1500m' }, { cpu: '1' }))]), ['maximum cpu usage per Container is 1, but request is 1500m']],
  ['no limit under a max', lr({ type: 'Container', max: { memory: '1Gi' } }), pod([container('c', res({}))]), ['maximum memory usage per Container is 1Gi.  No limit is specified']],
  [
    'a ratio above the max ratio',
    lr({ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }),
    pod([container('c', res({ cpu: '100m' }, { cpu: '400m' }))]),
    ['cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000'],
  ],
  ['a ratio without a request', lr({ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }), pod([container('c', res({}, { cpu: '1' }))]), ['cpu max limit to request ratio per Container is 2, but no request is specified or request is 0']],
  ['a ratio without a limit', lr({ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }), pod([container('c', res({ cpu: '1' }))]), ['cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0']],
  [
    'every container is checked',
    lr({ type: 'Container', max: { cpu: '1' } }),
    pod([container('a', res({ cpu: '1' }, { cpu: '2' })), container('b', res({ cpu: '1' }, { cpu: '3' }))]),
    ['maximum cpu usage per Container is 1, but limit is 2', 'maximum cpu usage per Container is 1, but limit is 3'],
  ],
  [
    'a Pod item sums the containers',
    lr({ type: 'Pod', max: { cpu: '1' } }),
    pod([container('a', res({ cpu: '600m' }, { cpu: '600m' })), container('b', res({ cpu: '600m' }, { cpu: '600m' }))]),
    ['maximum cpu usage per Pod is 1, but limit is 1200m'],
  ],
  [
    'a Pod item takes the largest init container when it is larger',
    lr({ type: 'Pod', max: { memory: '1Gi' } }),
    pod([container('a', res({ memory: '256Mi' }, { memory: '256Mi' }))], [container('init', res({ memory: '2Gi' }, { memory: '2Gi' }))]),
    ['maximum memory usage per Pod is 1Gi, but limit is 2Gi'],
  ],
])('constraints: %s', (_name, range, p, messages) => {
  expect(limitRangeViolations(range, p)).toEqual(messages);
});

test.each([
  ['one message is bare', ['a'], 'a'],
  ['several are bracketed', ['a', 'b'], '[a, b]'],
  ['repeats are dropped', ['a', 'a'], 'a'],
])('aggregate: %s', (_name, errs, text) => {
  expect(aggregateMessage(errs)).toBe(text);
});
