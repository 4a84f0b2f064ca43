// The scheduler the API server runs in its own process (--enable-scheduler, on by default), through kubectl 1.33
// against the built binary: a Node made Ready through its status as a node agent would, `kubectl run` without a
// node, and what a user sees (spec.nodeName, the Scheduled and FailedScheduling events, `kubectl describe pod`).
// With --enable-scheduler=false nothing binds pods, and a scheduler run elsewhere (@cl/scheduler in this test
// process) does.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, loadKubeconfig } from '@cl/kube-client';
import { generateSelfSignedServing } from '@cl/pki';
import { Scheduler } from '@cl/scheduler';
import { waitFor } from '@cl/testing';
import { kubectlHelpers, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(180_000);

let api: ApiserverProcess;
/** kubectl's --tls-server-name, for a server whose certificate names no loopback address. */
let tlsServerName: string | undefined;
const helpers = kubectlHelpers(() => api);
const flags = () => (tlsServerName ? [`--tls-server-name=${tlsServerName}`] : []);
const k = (...args: string[]) => helpers.k(...flags(), ...args);
const ok = (...args: string[]) => helpers.ok(...flags(), ...args);
const file = helpers.file;

const READY = {
  conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  allocatable: { cpu: '2', memory: '4Gi', pods: '110' },
  capacity: { cpu: '2', memory: '4Gi', pods: '110' },
};

/** A Node registered from a manifest, then made Ready with room through its status subresource. */
function readyNode(name: string) {
  ok('create', '-f', file(`${name}.yaml`, `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\n`));
  ok('patch', 'node', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: READY }));
}

const nodeNameOf = (pod: string) => ok('get', 'pod', pod, '-o', 'jsonpath={.spec.nodeName}');

/** The namespace's default service account (which pods need) comes from a controller shortly after start. */
const defaultServiceAccount = () => waitFor(() => k('get', 'serviceaccount', 'default').status === 0, 'the default service account');

describe('with the scheduler in the API server process (the default)', () => {
  beforeAll(async () => {
    // With --shutdown-send-retry-after the drain waits for every request in flight: a scheduler still watching
    // would hold the last test's SIGTERM forever.
    api = await startApiserverProcess(['--shutdown-send-retry-after=true']);
    await defaultServiceAccount();
  });
  afterAll(() => api?.cleanup());

  test('starts once the post-start hooks have finished, and says so', async () => {
    const out = await waitFor(() => /Scheduler "default-scheduler" started/.test(api.output()) && api.output(), 'the scheduler start line');
    expect(out.indexOf('All post-start hooks finished')).toBeLessThan(out.indexOf('Scheduler "default-scheduler" started'));
  });

  test('kubectl run without a node: the pod is bound to the Ready node, with a Scheduled event from default-scheduler', async () => {
    readyNode('node-a');
    expect(ok('run', 'web', '--image=busybox')).toBe('pod/web created\n');
    expect(await waitFor(() => nodeNameOf('web') || undefined, 'web to be bound')).toBe('node-a');
    const events = await waitFor(() => {
      const text = ok('get', 'events');
      return /Scheduled/.test(text) && text;
    }, 'the Scheduled event');
    expect(events).toMatch(/\bNormal\s+Scheduled\s+pod\/web\s+Successfully assigned default\/web to node-a\n/);
    expect(ok('describe', 'pod', 'web')).toMatch(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/web to node-a\n/);
    expect(ok('get', 'pods', 'web', '-o', 'wide', '--no-headers')).toMatch(/^web\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+node-a\s/);
  });

  test('a pod that fits on no node stays Pending with upstream\'s FailedScheduling message and PodScheduled condition', async () => {
    const overrides = { spec: { containers: [{ name: 'big', image: 'busybox', resources: { requests: { cpu: '3' } } }] } };
    ok('run', 'big', '--image=busybox', `--overrides=${JSON.stringify(overrides)}`);
    const message = '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.';
    const described = await waitFor(() => {
      const text = ok('describe', 'pod', 'big');
      return text.includes(message) && text;
    }, 'the FailedScheduling event of big');
    expect(described).toMatch(new RegExp(`Warning\\s+FailedScheduling\\s+.*\\s+default-scheduler\\s+${message.replace(/[.()]/g, '\\$&')}\n`));
    expect(described).toMatch(/Conditions:\n\s+Type\s+Status\n\s+PodScheduled\s+False/);
    const pod = JSON.parse(ok('get', 'pod', 'big', '-o', 'json'));
    expect(pod.spec.nodeName).toBeUndefined();
    expect(pod.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message })]);
    expect(ok('get', 'events', '--field-selector', 'involvedObject.name=big')).toMatch(/Warning\s+FailedScheduling\s+pod\/big\s+0\/1 nodes are available: 1 Insufficient cpu\./);
  });

  test("kubectl's user is its own: the loopback identity (system:apiserver) is the server's alone", () => {
    const whoami = JSON.parse(ok('auth', 'whoami', '-o', 'json'));
    expect(whoami.status.userInfo.username).toBe('system:anonymous');
    expect(api.output()).not.toMatch(/Bearer|system:apiserver/);
  });

  test('SIGTERM stops the scheduler before the server drains: the process exits 0', async () => {
    expect(await api.kill('SIGTERM')).toBe(0);
    expect(api.output()).toContain('Server stopped: in-flight requests finished');
  });
});

describe('with --enable-scheduler=false', () => {
  let client: KubeClient | undefined;
  const elsewhere: Scheduler[] = [];

  beforeAll(async () => {
    api = await startApiserverProcess(['--enable-scheduler=false']);
    await defaultServiceAccount();
    client = new KubeClient({ ...loadKubeconfig(api.kubeconfig), qps: -1 });
  });
  afterAll(async () => {
    for (const s of elsewhere) await s.stop();
    client?.close();
    await api?.cleanup();
  });

  test('no pod is bound until a scheduler runs elsewhere, which then binds it as the in-process one would', async () => {
    await waitFor(() => api.output().includes('All post-start hooks finished'), 'the post-start hooks');
    expect(api.output()).not.toContain('Scheduler "default-scheduler" started');
    readyNode('node-a');
    ok('run', 'idle', '--image=busybox');
    // A scheduler of another name, in this process, binds a pod of its own: the cluster is schedulable, and the
    // pod for default-scheduler, created before, has still been left alone.
    const other = new Scheduler({ client: client!, schedulerName: 'other-scheduler' });
    elsewhere.push(other);
    await other.start();
    ok('run', 'marker', '--image=busybox', `--overrides=${JSON.stringify({ spec: { schedulerName: 'other-scheduler' } })}`);
    expect(await waitFor(() => nodeNameOf('marker') || undefined, 'marker to be bound')).toBe('node-a');
    expect(nodeNameOf('idle')).toBe('');
    expect(k('get', 'events', '--field-selector', 'involvedObject.name=idle')).toMatchObject({ status: 0, stdout: '', stderr: 'No resources found in default namespace.\n' });
    expect(JSON.parse(ok('get', 'pod', 'idle', '-o', 'json')).status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });

    const scheduler = new Scheduler({ client: client! });
    elsewhere.push(scheduler);
    await scheduler.start();
    expect(await waitFor(() => nodeNameOf('idle') || undefined, 'idle to be bound')).toBe('node-a');
    expect(await waitFor(() => /Scheduled/.test(ok('get', 'events', '--field-selector', 'involvedObject.name=idle')) && ok('describe', 'pod', 'idle'), 'the Scheduled event')).toMatch(
      /Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/idle to node-a\n/,
    );
  });
});

describe('with a --tls-cert-file that does not verify for the loopback address', () => {
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-apiserver-'));
    // A certificate for a DNS name only, with its CA: kubectl verifies it by that name, the loopback client cannot.
    tlsServerName = 'apiserver.example.test';
    const pair = await generateSelfSignedServing({ hosts: [tlsServerName], dir: join(dir, 'certs'), name: 'apiserver' });
    api = await startApiserverProcess([`--tls-cert-file=${pair.certFile}`, `--tls-private-key-file=${pair.keyFile}`], { dir });
    await defaultServiceAccount();
  });
  afterAll(async () => {
    tlsServerName = undefined;
    await api?.cleanup();
  });

  test('the loopback client skips verification, says so, and the scheduler binds pods', async () => {
    readyNode('node-a');
    ok('run', 'web', '--image=busybox');
    expect(await waitFor(() => nodeNameOf('web') || undefined, 'web to be bound')).toBe('node-a');
    // The reason in brackets is Node's TLS error, worded by the Node version. (Log lines are flushed on a timer:
    // the line may reach the output after the binding.)
    const warning = /W\d{4} [\d:.]+ +\d+ apiserver\] The serving certificate does not verify for the loopback client at 127\.0\.0\.1 \(.*127\.0\.0\.1.*\); in-process clients skip TLS verification\n/;
    expect(await waitFor(() => warning.exec(api.output()) || undefined, 'the warning')).toBeTruthy();
  });
});
