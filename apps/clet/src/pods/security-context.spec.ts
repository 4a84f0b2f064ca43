import type { Pod } from './api-types';
import { containerSecurity, runAsNonRootViolation, sandboxSecurity, sysctlAdmission } from './security-context';
import { validatePod } from './validate';

const opts = { seccompDefault: false, seccompProfileRoot: '/var/lib/clet/seccomp' };
const pod = (spec: object = {}, container: object = {}): Pod =>
  ({ metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [{ name: 'c', image: 'busybox', ...container }], ...spec } }) as unknown as Pod;

test.each([
  ['nothing named, no --seccomp-default', pod(), opts, { profileType: 'Unconfined' }],
  ['nothing named, --seccomp-default', pod(), { ...opts, seccompDefault: true }, { profileType: 'RuntimeDefault' }],
  ['the pod\'s profile', pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }), opts, { profileType: 'RuntimeDefault' }],
  ['the container\'s over the pod\'s', pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }, { securityContext: { seccompProfile: { type: 'Unconfined' } } }), { ...opts, seccompDefault: true }, { profileType: 'Unconfined' }],
  ['a Localhost profile under the root dir', pod({}, { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' } } }), opts, { profileType: 'Localhost', localhostRef: '/var/lib/clet/seccomp/profiles/audit.json' }],
])('seccomp: %s', (_n, p, o, want) => {
  expect(containerSecurity(p, p.spec.containers[0], o).seccomp).toEqual(want);
});

test('fsGroup joins the supplemental groups of the sandbox and every container', () => {
  const p = pod({ securityContext: { supplementalGroups: [5], fsGroup: 7 } });
  expect(sandboxSecurity(p, opts).supplementalGroups).toEqual([5, 7]);
  expect(containerSecurity(p, p.spec.containers[0], opts).supplementalGroups).toEqual([5, 7]);
});

test('procMount Unmasked leaves /proc unmasked; Default masks it', () => {
  const masked = containerSecurity(pod(), pod().spec.containers[0], opts);
  expect(masked.maskedPaths).toContain('/proc/kcore');
  expect(masked.readonlyPaths).toContain('/proc/sys');
  const p = pod({ hostUsers: false }, { securityContext: { procMount: 'Unmasked' } });
  expect(containerSecurity(p, p.spec.containers[0], opts)).toMatchObject({ maskedPaths: [], readonlyPaths: [] });
});

test('an allowlist entry that is not namespaced stops the agent', () => {
  expect(() => sysctlAdmission(['vm.swappiness'])).toThrow('the sysctl "vm.swappiness" is not known to be namespaced');
  expect(() => sysctlAdmission(['kernel.*'])).toThrow('the sysctl pattern "kernel.*" is not known to be namespaced');
});

test.each([
  [{ sysctls: [{ name: 'net.core.somaxconn', value: '1' }] }, {}, 'forbidden sysctl: "net.core.somaxconn" not allowlisted'],
  [{ sysctls: [{ name: 'net/ipv4/tcp_syncookies', value: '1' }] }, {}, null],
  [{ sysctls: [{ name: 'kernel.msgmax', value: '1' }] }, { hostIPC: true }, 'forbidden sysctl: "kernel.msgmax" not allowed with host ipc enabled'],
])('sysctl admission %#', (sc, spec, message) => {
  const admit = sysctlAdmission(['kernel.msg*']);
  const got = admit(pod({ securityContext: sc, ...spec }));
  expect(got).toEqual(message ? { reason: 'SysctlForbidden', message } : null);
});

test('runAsNonRoot: a non-numeric image user cannot be verified', () => {
  expect(runAsNonRootViolation(pod({ securityContext: { runAsNonRoot: true } }), pod().spec.containers[0], { uid: null, username: 'nginx' })).toBe(
    'container has runAsNonRoot and image has non-numeric user (nginx), cannot verify user is non-root (pod: "p_default(u1)", container: c)',
  );
  expect(runAsNonRootViolation(pod({ securityContext: { runAsNonRoot: true } }), pod().spec.containers[0], { uid: 101, username: '' })).toBeNull();
});

test.each([
  [pod({ securityContext: { runAsUser: -1 } }), 'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive'],
  [pod({ securityContext: { seccompProfile: { type: 'Strict' } } }), 'spec.securityContext.seccompProfile.type: Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"'],
  [pod({}, { securityContext: { seccompProfile: { type: 'Localhost' } } }), 'spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost'],
  [pod({}, { securityContext: { procMount: 'Unmasked' } }), 'spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`'],
  [pod({ securityContext: { sysctls: [{ name: 'Kernel.X', value: '1' }] } }), 'spec.securityContext.sysctls[0].name: Invalid value: "Kernel.X": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$'],
  [pod({}, { livenessProbe: { periodSeconds: 1 } }), 'spec.containers[0].livenessProbe: Required value: must specify a handler type'],
  [pod({}, { livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 } }), 'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1'],
  [pod({}, { readinessProbe: { exec: { command: ['true'] }, tcpSocket: { port: 80 } } }), 'spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type'],
  [pod({}, { lifecycle: { preStop: { sleep: { seconds: -1 } } } }), 'spec.containers[0].lifecycle.preStop.sleep.seconds: Invalid value: -1: must be non-negative'],
])('validation %#', (p, error) => {
  expect(validatePod(p)).toContain(error);
});
