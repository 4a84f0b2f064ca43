// securityContext reaching the runtime, against a real private containerd: what each container sees from the
// inside (its ids, capabilities, no_new_privs, seccomp mode, /proc masking, read-only root, sysctls), and the
// pods upstream refuses before running them (sysctls, AppArmor on a host without it, runAsNonRoot).
import { waitFor as poll } from '@cl/testing';
import * as fs from 'node:fs';
import { hostHasAppArmor } from '../src/pods/security-context';
import { startStaticPodEnv, type StaticPodEnv } from './static-pods';

jest.setTimeout(180_000);

let env: StaticPodEnv;

beforeAll(async () => {
  env = await startStaticPodEnv('cl-pods-security-', { seccompDefault: false, allowedUnsafeSysctls: ['kernel.msg*'] });
});
afterAll(() => env?.stop());

/** A pod whose one container runs `script`, then fails so that its output becomes the termination message. */
function writePod(name: string, script: string, container: object = {}, spec: object = {}): void {
  env.writePod(name, {
    hostNetwork: true, restartPolicy: 'Never', terminationGracePeriodSeconds: 0,
    containers: [{ name: 'c', image: env.images.busybox, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', `${script}; exit 1`], terminationMessagePolicy: 'FallbackToLogsOnError', ...container }],
    ...spec,
  });
}

const podNamed = (name: string) => env.podNamed(name);

/** What the container printed (its termination message). */
function outputOf(name: string): Promise<string> {
  return poll(() => podNamed(name)?.status?.containerStatuses?.[0]?.state.terminated?.message, `${name} to finish`, 900, 200);
}

const MASKED_PROBE = ['/proc/kcore', '/proc/timer_list', '/proc/keys', '/proc/sched_debug'].find((f) => fs.existsSync(f)) ?? '/proc/keys';
const podName = (title: string) => title.toLowerCase().replace(/[^a-z]+/g, '-').replace(/-+$/, '');

const inside: Array<[string, string, object, object, RegExp]> = [
  ['ids', 'id', { securityContext: { runAsUser: 1234, runAsGroup: 2345 } }, { securityContext: { fsGroup: 3456, supplementalGroups: [4567] } }, /uid=1234 gid=2345 groups=.*3456.*4567/],
  ['pod-level ids', 'id -u; id -g', {}, { securityContext: { runAsUser: 1111, runAsGroup: 2222 } }, /^1111\n2222\n?$/],
  ['fsGroup owns emptyDir volumes', 'touch /data/f; stat -c "%g %A" /data /data/f', { volumeMounts: [{ name: 'data', mountPath: '/data' }], securityContext: { runAsUser: 1000 } },
    { securityContext: { fsGroup: 3456 }, volumes: [{ name: 'data', emptyDir: {} }] }, /^3456 drwxrwsrwx\n3456 /],
  // The agent syncs the pod when the container starts (and at every status change): the emptyDir is set up once.
  ['a container\'s own chmod of its emptyDir stays', 'chmod 700 /data; sleep 3; stat -c "%a" /data', { volumeMounts: [{ name: 'data', mountPath: '/data' }] },
    { volumes: [{ name: 'data', emptyDir: {} }] }, /^700\n/],
  ['the downward API\'s host and pod addresses', 'echo "$H $HS $P $PS"', { env: [
    { name: 'H', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }, { name: 'HS', valueFrom: { fieldRef: { fieldPath: 'status.hostIPs' } } },
    { name: 'P', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }, { name: 'PS', valueFrom: { fieldRef: { fieldPath: 'status.podIPs' } } }] }, {},
    /^127\.0\.0\.1 127\.0\.0\.1 127\.0\.0\.1 127\.0\.0\.1\n?$/],
  ['a read-only root', 'touch /probe 2>&1', { securityContext: { readOnlyRootFilesystem: true } }, {}, /Read-only file system/],
  ['capabilities dropped', 'grep CapEff /proc/self/status', { securityContext: { capabilities: { drop: ['ALL'] } } }, {}, /CapEff:\s+0000000000000000/],
  ['one capability added', 'grep CapEff /proc/self/status', { securityContext: { capabilities: { drop: ['ALL'], add: ['NET_ADMIN'] } } }, {}, /CapEff:\s+0000000000001000/],
  ['no privilege escalation', 'grep NoNewPrivs /proc/self/status', { securityContext: { allowPrivilegeEscalation: false } }, {}, /NoNewPrivs:\s+1/],
  ['privilege escalation by default', 'grep NoNewPrivs /proc/self/status', {}, {}, /NoNewPrivs:\s+0/],
  ['seccomp RuntimeDefault', 'grep -w Seccomp /proc/self/status', { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }, {}, /Seccomp:\s+2/],
  ['seccomp from the pod', 'grep -w Seccomp /proc/self/status', {}, { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }, /Seccomp:\s+2/],
  ['seccomp Unconfined (no --seccomp-default)', 'grep -w Seccomp /proc/self/status', {}, {}, /Seccomp:\s+0/],
  // /proc/kcore is absent on some kernels; any masked file that exists reads as empty.
  // The group's redirect carries the shell's own error for the failed write to stdout, so both lines share one
  // stream and arrive in order (stdout and stderr are separate pipes whose lines may interleave either way).
  ['masked and read-only /proc', `wc -c < ${MASKED_PROBE}; { echo 1 > /proc/sys/kernel/shm_rmid_forced; } 2>&1`, {}, {}, /^0\n.*Read-only file system/s],
  ['a safe sysctl', 'cat /proc/sys/kernel/shm_rmid_forced', {}, { securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] } }, /^1\n?$/],
  ['an allowlisted unsafe sysctl', 'cat /proc/sys/kernel/msgmax', {}, { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '4242' }] } }, /^4242\n?$/],
];

test.each(inside)('%s', async (name, script, container, spec, want) => {
  const pod = podName(name);
  writePod(pod, script, container, spec);
  expect(await outputOf(pod)).toMatch(want);
});

const refused: Array<[string, object, object, { reason: string; message: string | RegExp }]> = [
  ['an unsafe sysctl not allowlisted', {}, { securityContext: { sysctls: [{ name: 'kernel.sem', value: '250 32000 32 128' }] } },
    { reason: 'SysctlForbidden', message: 'forbidden sysctl: "kernel.sem" not allowlisted' }],
  ['a net sysctl with the host network', {}, { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_syncookies', value: '1' }] } },
    { reason: 'SysctlForbidden', message: 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled' }],
  ['a pod for another OS', {}, { os: { name: 'windows' } }, { reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS" }],
];
if (!hostHasAppArmor()) {
  refused.push(['AppArmor on a host without it', { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }, {},
    { reason: 'AppArmor', message: 'Cannot enforce AppArmor: AppArmor is not enabled on the host' }]);
}

test.each(refused)('refused at admission: %s', async (name, container, spec, want) => {
  const pod = podName(name);
  writePod(pod, 'true', container, spec);
  const status = await poll(() => podNamed(pod)?.status?.phase === 'Failed' && podNamed(pod)!.status, `${pod} to be refused`, 300, 200);
  expect(status).toMatchObject(want);
  expect(status.containerStatuses ?? []).toEqual([]);
});

test('refused at admission: a pod labelled for another OS', async () => {
  env.writePod('os-label', { hostNetwork: true, restartPolicy: 'Never', containers: [{ name: 'c', image: env.images.busybox, imagePullPolicy: 'IfNotPresent', command: ['true'] }] }, { 'cl.io/os': 'windows' });
  const status = await poll(() => podNamed('os-label')?.status?.phase === 'Failed' && podNamed('os-label')!.status, 'os-label to be refused', 300, 200);
  expect(status).toMatchObject({ reason: 'PodOSSelectorNodeLabelDoesNotMatch', message: "Failed to admit pod as the `cl.io/os` label doesn't match node label" });
});

test.each([
  ['runAsNonRoot with an image that runs as root', {}, 'container has runAsNonRoot and image will run as root (pod: "non-root-image-node1_default(UID)", container: c)'],
  ['runAsNonRoot with runAsUser 0', { runAsUser: 0 }, 'container\'s runAsUser breaks non-root policy (pod: "non-root-zero-node1_default(UID)", container: c)'],
])('%s: the container waits with CreateContainerConfigError', async (name, extra, message) => {
  const pod = name.includes('runAsUser') ? 'non-root-zero' : 'non-root-image';
  writePod(pod, 'true', { securityContext: { runAsNonRoot: true, ...extra } });
  const waiting = await poll(() => podNamed(pod)?.status?.containerStatuses?.[0]?.state.waiting?.reason === 'CreateContainerConfigError' && podNamed(pod)!, `${pod} to wait`, 300, 200);
  expect(waiting.status!.containerStatuses![0].state.waiting!.message).toBe(message.replace('UID', waiting.metadata.uid!));
});

test('a runAsNonRoot container with a non-root user runs', async () => {
  writePod('non-root-ok', 'id -u', { securityContext: { runAsNonRoot: true, runAsUser: 1000 } });
  expect(await outputOf('non-root-ok')).toMatch(/^1000\n?$/);
});
