import { goArch, reconcileExisting, registrationNode, wellKnownLabels, type RegistrationOptions } from './node-object';
import type { Node } from './types';

const ARCH = goArch();
const base: RegistrationOptions = { nodeName: 'n1', hostname: 'host-1' };

describe('registrationNode', () => {
  test.each<[string, string | undefined, Record<string, string>]>([
    ['kubernetes.io by default', undefined, { 'kubernetes.io/hostname': 'host-1', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': ARCH, 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': ARCH }],
    ['the product domain when asked', 'cl.io', { 'cl.io/hostname': 'host-1', 'cl.io/os': 'linux', 'cl.io/arch': ARCH, 'beta.cl.io/os': 'linux', 'beta.cl.io/arch': ARCH }],
  ])('default labels under %s', (_name, labelDomain, labels) => {
    const node = registrationNode({ ...base, labelDomain });
    expect(node).toMatchObject({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    expect(node.metadata.labels).toEqual(labels);
  });

  test('--node-labels add labels and override the defaults', () => {
    const node = registrationNode({ ...base, nodeLabels: { 'kubernetes.io/hostname': 'custom', 'node-role.kubernetes.io/worker': '' } });
    expect(node.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': 'custom', 'node-role.kubernetes.io/worker': '', 'kubernetes.io/os': 'linux' });
  });

  const gpu = { key: 'gpu', value: 'true', effect: 'NoSchedule' };
  const cordon = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
  test.each<[string, Partial<RegistrationOptions>, Node['spec']]>([
    ['schedulable, no taints: an empty spec', {}, {}],
    ['--register-with-taints', { taints: [gpu] }, { taints: [gpu] }],
    ['--register-schedulable=false: cordoned and tainted', { registerSchedulable: false }, { taints: [cordon], unschedulable: true }],
    ['--register-schedulable=false with other taints: the unschedulable taint comes last', { registerSchedulable: false, taints: [gpu] }, { taints: [gpu, cordon], unschedulable: true }],
    ['--register-schedulable=false with the unschedulable taint given: not twice', { registerSchedulable: false, taints: [cordon] }, { taints: [cordon], unschedulable: true }],
    ['a provider ID', { providerID: 'aws:///eu-west-1a/i-0abc' }, { providerID: 'aws:///eu-west-1a/i-0abc' }],
  ])('%s', (_name, options, spec) => {
    expect(registrationNode({ ...base, ...options }).spec).toEqual(spec);
  });

  test('the taints given are not changed by registration', () => {
    const taints = [gpu];
    registrationNode({ ...base, taints, registerSchedulable: false });
    expect(taints).toEqual([gpu]);
  });

  test.each<[boolean | undefined, Record<string, string> | undefined]>([
    [undefined, { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' }],
    [true, { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' }],
    [false, undefined],
  ])('enableControllerAttachDetach %s -> annotations %j', (enableControllerAttachDetach, annotations) => {
    expect(registrationNode({ ...base, enableControllerAttachDetach }).metadata.annotations).toEqual(annotations);
  });
});

describe('reconcileExisting', () => {
  const node = (labels: Record<string, string>, annotations?: Record<string, string>): Node => ({ metadata: { name: 'n1', labels, annotations }, spec: {} });
  const CMAD = 'volumes.kubernetes.io/controller-managed-attach-detach';
  const defaults = { 'kubernetes.io/hostname': 'host-1', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' };

  test.each<[string, Node, Node, ReturnType<typeof reconcileExisting>]>([
    ['the same labels and annotation: nothing to write', node(defaults, { [CMAD]: 'true' }), node(defaults, { [CMAD]: 'true' }), null],
    ['a default label changed (a new hostname)', node(defaults), node({ ...defaults, 'kubernetes.io/hostname': 'host-2' }), { labels: { 'kubernetes.io/hostname': 'host-2' }, annotations: {} }],
    ['a default label the Node lacks is set', node({ 'kubernetes.io/os': 'linux' }), node({ 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'arm64' }), { labels: { 'kubernetes.io/arch': 'arm64' }, annotations: {} }],
    [
      'a default label the new Node has not is removed',
      node({ ...defaults, 'topology.kubernetes.io/zone': 'z1' }),
      node(defaults),
      { labels: { 'topology.kubernetes.io/zone': null }, annotations: {} },
    ],
    ['labels outside the default list are never touched, set or not', node({ ...defaults, team: 'a', 'node-role.kubernetes.io/worker': '' }), node({ ...defaults, team: 'b', extra: 'x' }), null],
    ['the attach-detach annotation is added', node(defaults), node(defaults, { [CMAD]: 'true' }), { labels: {}, annotations: { [CMAD]: 'true' } }],
    ['the attach-detach annotation is removed when disabled', node(defaults, { [CMAD]: 'true', other: 'kept' }), node(defaults), { labels: {}, annotations: { [CMAD]: null } }],
    ['other annotations are never touched', node(defaults, { other: 'a' }), node(defaults, { other: 'b' }), null],
  ])('%s', (_name, existing, wanted, patch) => {
    expect(reconcileExisting(existing, wanted)).toEqual(patch);
  });

  test('the default list follows the label domain: kubernetes.io labels are left alone under cl.io', () => {
    const existing = node({ 'kubernetes.io/hostname': 'old', 'cl.io/hostname': 'old' });
    const wanted = node({ 'kubernetes.io/hostname': 'new', 'cl.io/hostname': 'new' });
    expect(reconcileExisting(existing, wanted, 'cl.io')).toEqual({ labels: { 'cl.io/hostname': 'new' }, annotations: {} });
  });

  test('a Node created by registrationNode needs nothing when registered again with the same options', () => {
    const wanted = registrationNode({ ...base, nodeLabels: { team: 'a' }, registerSchedulable: false });
    expect(reconcileExisting(structuredClone(wanted), wanted)).toBeNull();
  });
});

test('wellKnownLabels lists upstream default labels under the domain', () => {
  expect(wellKnownLabels('cl.io')).toEqual({
    hostname: 'cl.io/hostname',
    os: 'cl.io/os',
    arch: 'cl.io/arch',
    betaOs: 'beta.cl.io/os',
    betaArch: 'beta.cl.io/arch',
    defaults: [
      'cl.io/hostname',
      'topology.cl.io/zone',
      'topology.cl.io/region',
      'failure-domain.beta.cl.io/zone',
      'failure-domain.beta.cl.io/region',
      'node.cl.io/instance-type',
      'beta.cl.io/instance-type',
      'cl.io/os',
      'cl.io/arch',
      'beta.cl.io/os',
      'beta.cl.io/arch',
    ],
  });
});

test.each([
  ['x64', 'amd64'],
  ['ia32', '386'],
  ['arm', 'arm'],
  ['arm64', 'arm64'],
  ['ppc64', 'ppc64le'],
  ['s390x', 's390x'],
  ['riscv64', 'riscv64'],
])('goArch(%s) = %s', (nodeArch, go) => {
  expect(goArch(nodeArch)).toBe(go);
});
