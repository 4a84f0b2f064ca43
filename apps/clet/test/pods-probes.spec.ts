// Probes and lifecycle hooks against a real private containerd: a failing liveness probe restarts the container,
// a readiness probe holds Ready false until it passes, a startup probe holds liveness and readiness back, an
// httpGet probe reaches a server in a host-network pod on 127.0.0.1, every attempt is counted in
// prober_probe_total; postStart and preStop leave their marks, and a failing postStart kills the container.
import { waitFor as poll } from '@cl/testing';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Registry } from 'prom-client';
import { freePort } from './clet-harness';
import { startStaticPodEnv, type StaticPodEnv } from './static-pods';

jest.setTimeout(180_000);

let env: StaticPodEnv;
let tmp: string;
let manifests: string;
const probeMetrics = new Registry();

beforeAll(async () => {
  env = await startStaticPodEnv('cl-pods-probes-', {}, { probeMetrics });
  ({ tmp, manifests } = env);
});
afterAll(() => env?.stop());

function writePod(name: string, script: string, container: object, spec: object = {}): void {
  env.writePod(name, {
    hostNetwork: true, terminationGracePeriodSeconds: 0,
    containers: [{ name: 'c', image: env.images.busybox, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script], ...container }],
    ...spec,
  });
}

const podNamed = (name: string) => env.podNamed(name);
const container = (name: string) => podNamed(name)?.status?.containerStatuses?.[0];
const condition = (name: string, type: string) => podNamed(name)?.status?.conditions?.find((c) => c.type === type)?.status;
const waitFor = <T>(what: string, fn: () => T | undefined | null | false) => poll(fn, what, 900, 200);

test('a failing liveness probe restarts the container', async () => {
  writePod('live', 'touch /tmp/healthy; sleep 2; rm /tmp/healthy; exec sleep 600', {
    livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 2 },
  });
  await waitFor('the container to run', () => container('live')?.state.running);
  const restarted = await waitFor('a restart', () => (container('live')?.restartCount ?? 0) >= 1 && container('live'));
  expect(restarted.lastState.terminated).toBeDefined();
});

test('a readiness probe holds Ready false until it passes', async () => {
  writePod('ready', 'sleep 3; touch /tmp/ready; exec sleep 600', {
    readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1 },
  });
  const early = await waitFor('the container to run', () => container('ready')?.state.running && container('ready'));
  expect(early.ready).toBe(false);
  expect(condition('ready', 'Ready')).toBe('False');
  await waitFor('Ready', () => condition('ready', 'Ready') === 'True');
  expect(container('ready')).toMatchObject({ ready: true, started: true });
  expect(condition('ready', 'ContainersReady')).toBe('True');
});

test('a startup probe holds the container unstarted and unready until it passes', async () => {
  writePod('startup', 'sleep 3; touch /tmp/started; exec sleep 600', {
    startupProbe: { exec: { command: ['test', '-f', '/tmp/started'] }, periodSeconds: 1, failureThreshold: 30 },
    readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 },
    // Would restart the container at once if it ran before the startup probe passed.
    livenessProbe: { exec: { command: ['test', '-f', '/tmp/started'] }, periodSeconds: 1, failureThreshold: 1 },
  });
  const early = await waitFor('the container to run', () => container('startup')?.state.running && container('startup'));
  expect([early.started, early.ready]).toEqual([false, false]);
  await waitFor('started and ready', () => container('startup')?.started && container('startup')?.ready);
  expect(container('startup')!.restartCount).toBe(0);
});

test('an httpGet probe reaches a host-network server on 127.0.0.1; attempts are counted by result', async () => {
  const port = await freePort();
  writePod('web', `mkdir /www && echo ok > /www/index.html && exec httpd -f -p 127.0.0.1:${port} -h /www`, {
    ports: [{ name: 'http', containerPort: port }],
    readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 1 },
  });
  await waitFor('the server to run', () => container('web')?.state.running);
  await waitFor('Ready', () => condition('web', 'Ready') === 'True');
  const text = await probeMetrics.metrics();
  expect(text).toMatch(/prober_probe_total\{probe_type="Readiness",result="successful",container="c",pod="web-node1",namespace="default",pod_uid="[^"]+"\} [1-9]/);
  expect(text).toMatch(/prober_probe_total\{probe_type="Liveness",result="failed",container="c",pod="live-node1",namespace="default",pod_uid="[^"]+"\} [1-9]/);
});

describe('lifecycle hooks', () => {
  let marks: string;
  beforeAll(() => {
    marks = path.join(tmp, 'marks');
    fs.mkdirSync(marks);
  });
  const mount = { volumeMounts: [{ name: 'marks', mountPath: '/marks' }] };

  test('postStart runs before the container counts as started; preStop runs when the pod is killed', async () => {
    writePod('hooks', 'exec sleep 600', {
      ...mount,
      lifecycle: {
        postStart: { exec: { command: ['sh', '-c', 'echo started > /marks/post-start'] } },
        preStop: { exec: { command: ['sh', '-c', 'echo stopping > /marks/pre-stop'] } },
      },
    }, { volumes: [{ name: 'marks', hostPath: { path: marks } }], terminationGracePeriodSeconds: 5 });
    await waitFor('the container to run', () => container('hooks')?.state.running);
    expect(fs.readFileSync(path.join(marks, 'post-start'), 'utf8')).toBe('started\n');
    expect(fs.existsSync(path.join(marks, 'pre-stop'))).toBe(false);
    fs.rmSync(path.join(manifests, 'hooks.json'));
    await waitFor('the preStop mark', () => fs.existsSync(path.join(marks, 'pre-stop')));
    expect(fs.readFileSync(path.join(marks, 'pre-stop'), 'utf8')).toBe('stopping\n');
  });

  test('a failing postStart kills the container, which restarts', async () => {
    writePod('bad-hook', 'exec sleep 600', { lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo nope; exit 3'] } } } });
    const restarted = await waitFor('a restart after the failed hook', () => (container('bad-hook')?.restartCount ?? 0) >= 1 && container('bad-hook'));
    expect(restarted.lastState.terminated).toBeDefined();
  });
});
