// pods/ephemeralcontainers: only spec.ephemeralContainers changes, existing ones stay, new ones are validated.
import type { KubeObject } from '@cl/apimachinery';
import { podEphemeralContainersView, validateEphemeralContainersUpdate } from './ephemeral-containers';
import { validatePodCreate } from './pod-validation';
import { podStrategy } from './pods';

const debug = (name: string, extra: object = {}) => ({ name, image: 'busybox', terminationMessagePolicy: 'File', ...extra });
const pod = (ephemeralContainers?: object[], extra: { annotations?: Record<string, string> } = {}): KubeObject => ({
  metadata: { name: 'p', namespace: 'ns', resourceVersion: '7', generation: 1, ...extra },
  spec: { containers: [{ name: 'c', image: 'nginx' }], initContainers: [{ name: 'init', image: 'busybox' }], ...(ephemeralContainers ? { ephemeralContainers } : {}) },
  status: { phase: 'Running' },
});
const messages = (next: KubeObject, old: KubeObject) => validateEphemeralContainersUpdate(next, old).map((e) => e.message);

test.each([
  ['adding one', pod([debug('dbg')]), pod(), []],
  ['adding one that targets a container', pod([debug('dbg', { targetContainerName: 'c' })]), pod(), []],
  ['adding a second', pod([debug('a'), debug('b')]), pod([debug('a')]), []],
  ['removing one', pod([]), pod([debug('a')]), ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "a" may not be removed\n']],
  ['changing one', pod([debug('a', { image: 'alpine' })]), pod([debug('a')]), ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "a" may not be changed\n\timage: "busybox" -> "alpine"']],
  ['a name taken by a container', pod([debug('c')]), pod(), ['spec.ephemeralContainers[0].name: Duplicate value: "c"']],
  ['a name taken by an init container', pod([debug('init')]), pod(), ['spec.ephemeralContainers[0].name: Duplicate value: "init"']],
  ['two with one name', pod([debug('a'), debug('a')]), pod(), ['spec.ephemeralContainers[1].name: Duplicate value: "a"']],
  ['a target that is no container', pod([debug('dbg', { targetContainerName: 'nope' })]), pod(), ['spec.ephemeralContainers[0].targetContainerName: Not found: "nope"']],
  ['no image', pod([{ name: 'dbg' }]), pod(), ['spec.ephemeralContainers[0].image: Required value']],
  ['ports', pod([debug('dbg', { ports: [{ containerPort: 80 }] })]), pod(), ['spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container']],
  ['resources', pod([debug('dbg', { resources: { limits: { cpu: '1' } } })]), pod(), ['spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container']],
  ['empty resources are no resources', pod([debug('dbg', { resources: {} })]), pod(), []],
  [
    'probes and lifecycle, in upstream order',
    pod([debug('dbg', { lifecycle: { preStop: { exec: { command: ['x'] } } }, readinessProbe: { exec: { command: ['x'] } } })]),
    pod(),
    ['spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container', 'spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container'],
  ],
  ['a static pod', pod([debug('dbg')], { annotations: { 'kubernetes.io/config.mirror': 'x' } }), pod(undefined, { annotations: { 'kubernetes.io/config.mirror': 'x' } }), [': Forbidden: static pods do not support ephemeral containers']],
])('%s', (_name, next, old, expected) => {
  expect(messages(next, old)).toEqual(expected);
});

test('an update through the subresource keeps everything but spec.ephemeralContainers', () => {
  const old = pod();
  const next = pod([debug('dbg')]);
  (next.spec as { containers: Array<{ image: string }> }).containers[0].image = 'evil';
  next.metadata!.labels = { added: 'yes' };
  next.status = { phase: 'Failed' };
  const written = podEphemeralContainersView.apply(next, structuredClone(old));
  // As the store then updates the pod: the pod strategy bumps the generation of the changed spec.
  podStrategy.prepareForUpdate!(written, old);
  expect(written).toEqual({ ...pod([debug('dbg')]), metadata: { ...old.metadata, generation: 2 } });
});

test('ephemeral containers cannot be set when a pod is created', () => {
  expect(validatePodCreate(pod([debug('dbg')])).map((e) => e.message)).toEqual(['spec.ephemeralContainers: Forbidden: cannot be set on create']);
  expect(validatePodCreate(pod())).toEqual([]);
});
