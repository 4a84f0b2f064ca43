// LimitRange validation (upstream's ValidateLimitRange): types, resource names, quantities and their order.
import type { KubeObject } from '@cl/apimachinery';
import { validateLimitRange } from './limit-ranges';

const lr = (...limits: object[]): KubeObject => ({ metadata: { name: 'lr' }, spec: { limits } });
const messages = (...limits: object[]) => validateLimitRange(lr(...limits)).map((e) => e.message);

test.each([
  ['a valid Container item', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' }, default: { cpu: '500m' }, defaultRequest: { cpu: '200m' }, maxLimitRequestRatio: { cpu: '5' } }], []],
  ['a valid Pod item', [{ type: 'Pod', max: { cpu: '2', memory: '1Gi' } }], []],
  ['an unknown type', [{ type: 'Node', max: { cpu: '1' } }], ['spec.limits[0].type: Invalid value: "Node": must be a standard limit type or fully qualified']],
  ['a repeated type', [{ type: 'Pod', max: { cpu: '1' } }, { type: 'Pod', max: { cpu: '2' } }], ['spec.limits[1].type: Duplicate value: "Pod"']],
  ['a non-container resource in a Container item', [{ type: 'Container', max: { pods: '1' } }], ['spec.limits[0].max[pods]: Invalid value: "pods": must be a standard resource for containers']],
  ['an unknown resource', [{ type: 'Container', max: { gpus: '1' } }], ['spec.limits[0].max[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified', 'spec.limits[0].max[gpus]: Invalid value: "gpus": must be a standard resource for containers']],
  ['min above max', [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }], ['spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1']],
  ['a default request below min', [{ type: 'Container', min: { cpu: '200m' }, defaultRequest: { cpu: '100m' } }], ['spec.limits[0].defaultRequest[cpu]: Invalid value: "100m": min value 200m is greater than default request value 100m']],
  ['a default request above max', [{ type: 'Container', max: { cpu: '1' }, defaultRequest: { cpu: '2' } }], ['spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default request value 2 is greater than max value 1']],
  ['a default request above the default', [{ type: 'Container', default: { memory: '1Gi' }, defaultRequest: { memory: '2Gi' } }], ['spec.limits[0].defaultRequest[memory]: Invalid value: "2Gi": default request value 2Gi is greater than default limit value 1Gi']],
  ['a default below min', [{ type: 'Container', min: { cpu: '1' }, default: { cpu: '500m' } }], ['spec.limits[0].default[cpu]: Invalid value: "1": min value 1 is greater than default value 500m']],
  ['a default above max', [{ type: 'Container', max: { cpu: '1' }, default: { cpu: '2' }, defaultRequest: { cpu: '1' } }], ['spec.limits[0].default[cpu]: Invalid value: "1": default value 2 is greater than max value 1']],
  ['defaults in a Pod item', [{ type: 'Pod', default: { cpu: '1' } }], ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"]],
  ['a ratio below 1', [{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }], ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1']],
  ['a ratio beyond max/min', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '200m' }, maxLimitRequestRatio: { cpu: '3' } }], ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "3": ratio 3 is greater than max/min = 2.000000']],
  ['a bad quantity', [{ type: 'Container', max: { cpu: 'lots' } }], [expect.stringMatching(/^spec.limits\[0\].max\[cpu\]: Invalid value: "lots": quantities must match the regular expression/)]],
  ['a PVC item without storage bounds', [{ type: 'PersistentVolumeClaim', max: { memory: '1Gi' } }], ['spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided']],
  [
    'hugepages defaults must be equal',
    [{ type: 'Container', default: { 'hugepages-2Mi': '4Mi' }, defaultRequest: { 'hugepages-2Mi': '2Mi' } }],
    ['spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: "2Mi": default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi'],
  ],
])('%s', (_name, limits, expected) => {
  expect(messages(...limits)).toEqual(expected);
});
