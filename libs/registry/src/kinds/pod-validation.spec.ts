// Pod spec validation (field paths and messages as upstream).
import type { KubeObject } from '@cl/apimachinery';
import { validatePodSpec } from './pod-validation';

const withSpec = (spec: object): KubeObject => ({ metadata: { name: 'p' }, spec });
const c = (extra: object = {}) => ({ name: 'c', image: 'busybox', ...extra });
const messages = (spec: object) => validatePodSpec(withSpec(spec)).map((e) => e.message);

test.each([
  ['a valid pod', { containers: [c()] }, []],
  ['no containers', { containers: [] }, ['spec.containers: Required value']],
  ['no image', { containers: [{ name: 'c' }] }, ['spec.containers[0].image: Required value']],
  ['a bad container name', { containers: [c({ name: 'C_1' })] }, [expect.stringMatching(/^spec.containers\[0\].name: Invalid value: "C_1": a lowercase RFC 1123 label must consist of/)]],
  ['a repeated container name', { initContainers: [c()], containers: [c()] }, ['spec.containers[0].name: Duplicate value: "c"']],
  ['a port out of range', { containers: [c({ ports: [{ containerPort: 70000 }] })] }, ['spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive']],
  ['a bad protocol', { containers: [c({ ports: [{ containerPort: 80, protocol: 'HTTP' }] })] }, ['spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "TCP", "UDP", "SCTP"']],
  ['an env var without a name', { containers: [c({ env: [{ value: 'x' }] })] }, ['spec.containers[0].env[0].name: Required value']],
  ['a mount of a missing volume', { containers: [c({ volumeMounts: [{ name: 'data', mountPath: '/d' }] })] }, ['spec.containers[0].volumeMounts[0].name: Not found: "data"']],
  [
    'a volume with two sources',
    { volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }], containers: [c()] },
    ['spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type'],
  ],
  ['a volume with no source', { volumes: [{ name: 'v' }], containers: [c()] }, ['spec.volumes[0]: Required value: must specify a volume type']],
  ['a duplicate volume', { volumes: [{ name: 'v', emptyDir: {} }, { name: 'v', emptyDir: {} }], containers: [c()] }, ['spec.volumes[1].name: Duplicate value: "v"']],
  [
    'requests above limits',
    { containers: [c({ resources: { requests: { cpu: '2', memory: '1Gi' }, limits: { cpu: '1500m', memory: '1Gi' } } })] },
    ['spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1500m'],
  ],
  ['a bad quantity', { containers: [c({ resources: { limits: { memory: '1GB' } } })] }, [expect.stringMatching(/^spec.containers\[0\].resources.limits\[memory\]: Invalid value: "1GB": /)]],
  ['a bad restart policy', { restartPolicy: 'Sometimes', containers: [c()] }, ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']],
  [
    'a toleration value with Exists',
    { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }], containers: [c()] },
    ["spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"],
  ],
])('%s', (_name, spec, expected) => {
  expect(messages(spec)).toEqual(expected);
});
