// The QoS class of a pod's resources.
import type { KubeObject } from '@cl/apimachinery';
import { qosClass } from './qos';

const withSpec = (spec: object): KubeObject => ({ metadata: { name: 'p' }, spec });
const c = (extra: object = {}) => ({ name: 'c', image: 'busybox', ...extra });

test.each([
  ['no resources', [c()], 'BestEffort'],
  ['limits only (requests default to them)', [c({ resources: { limits: { cpu: '1', memory: '1Gi' } } })], 'Guaranteed'],
  ['equal requests and limits', [c({ resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '0.5', memory: '1024Mi' } } })], 'Guaranteed'],
  ['requests below limits', [c({ resources: { requests: { cpu: '100m' }, limits: { cpu: '1', memory: '1Gi' } } })], 'Burstable'],
  ['one container without limits', [c({ resources: { limits: { cpu: '1', memory: '1Gi' } } }), c({ name: 'd' })], 'Burstable'],
])('QoS: %s', (_name, containers, expected) => {
  expect(qosClass(withSpec({ containers }))).toBe(expected);
});
