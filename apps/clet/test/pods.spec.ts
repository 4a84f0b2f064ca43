// The pod manager against a real private containerd: static pods from files and a URL, the sync loop,
// restart policies and back-off, removal, edits, adoption after a restart, logs, GC.
import { waitFor as poll } from '@cl/testing';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { AddressInfo } from 'node:net';
import { CriClient } from '@cl/cri';
import type { CletConfiguration } from '../src/config/types';
import { createPodManager, PodManager, PodManagerOptions, Pod } from '../src/pods';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';
import { entryText } from '../src/log';

jest.setTimeout(120_000);

let ctd: PrivateContainerd;
let cri: CriClient;
let images: { busybox: string; pause: string };
let tmp: string;
let manifests: string;
const logs: string[] = [];
let mgr: PodManager;
let httpServer: http.Server;
let httpBody = '';
let httpStatus = 200;
let httpHeaders: string[][] = [];

function config(extra: Partial<CletConfiguration> = {}): CletConfiguration {
  return {
    staticPodPath: manifests, staticPodURL: '', staticPodURLHeader: {}, fileCheckFrequency: '1s', httpCheckFrequency: '1s',
    syncFrequency: '1m0s', containerRuntimeEndpoint: ctd.endpoint, imageServiceEndpoint: '', runtimeRequestTimeout: '2m0s',
    serializeImagePulls: true, registryPullQPS: 5, registryBurst: 10, containerLogMaxSize: '10Mi', containerLogMaxFiles: 5,
    containerLogMonitorInterval: '10s', imageGCHighThresholdPercent: 100, imageGCLowThresholdPercent: 80, imageMinimumGCAge: '2m0s',
    maxPods: 110, podLogsDir: path.join(tmp, 'pod-logs'), runOnce: false, resolvConf: '/etc/resolv.conf', clusterDNS: [], clusterDomain: '',
    ...extra,
  } as CletConfiguration;
}

function options(extra: Partial<PodManagerOptions> = {}): PodManagerOptions {
  return {
    config: config(), nodeName: 'node1', log: (l) => logs.push(entryText(l)), rootDir: path.join(tmp, 'root'), nodeIP: '127.0.0.1', containerGCPeriodMs: 1000,
    containerLogsDir: path.join(tmp, 'containers'), ...extra,
  };
}

/** The shared poller, with this suite's argument order and time bound. */
function waitFor<T>(what: string, fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  return poll(fn, what, Math.ceil(timeoutMs / 100));
}

const podsOf = (m: PodManager) => m.pods() as Pod[];
const podNamed = (name: string, m = mgr) => podsOf(m).find((p) => p.metadata.name === name);

function writeManifest(file: string, name: string, spec: object, extraMeta: object = {}): void {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...extraMeta }, spec };
  const tmpFile = path.join(manifests, `.${file}.tmp`);
  fs.writeFileSync(tmpFile, JSON.stringify(pod));
  fs.renameSync(tmpFile, path.join(manifests, file));
}

const sleeper = (name = 'c', extra: object = {}) => ({
  name, image: images.busybox, imagePullPolicy: 'IfNotPresent',
  command: ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done'], ...extra,
});

function taskPid(containerId: string): number {
  const line = ctd.ctr(['tasks', 'ls']).split('\n').find((l) => l.startsWith(containerId));
  return Number(line!.trim().split(/\s+/)[1]);
}

beforeAll(async () => {
  ctd = await startContainerd();
  images = ensureTestImages(ctd.socket);
  cri = await CriClient.connect({ runtimeEndpoint: ctd.endpoint });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-pods-'));
  manifests = path.join(tmp, 'manifests');
  fs.mkdirSync(manifests);
  httpServer = http.createServer((req, res) => {
    const pairs: string[][] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) pairs.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
    httpHeaders = pairs;
    res.statusCode = httpStatus;
    res.end(httpBody);
  });
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  mgr = createPodManager(options());
  await mgr.start();
});

afterAll(async () => {
  await mgr?.stop();
  cri?.close();
  await new Promise((r) => httpServer?.close(r));
  await ctd?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a manifest becomes a running pod with upstream names, UID, annotations, labels and logs', async () => {
  writeManifest('web.yaml', 'web', {
    hostNetwork: true,
    volumes: [{ name: 'host', hostPath: { path: path.join(tmp, 'hostdir'), type: 'DirectoryOrCreate' } }, { name: 'scratch', emptyDir: {} }],
    containers: [{
      name: 'c', image: images.busybox, imagePullPolicy: 'IfNotPresent', workingDir: '/tmp',
      command: ['sh', '-c'], args: ['echo "hello $(GREETING) from $(pwd) in $POD" | tee /host/out /scratch/x; exec sleep 3600'],
      env: [{ name: 'GREETING', value: 'world' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      volumeMounts: [{ name: 'host', mountPath: '/host' }, { name: 'scratch', mountPath: '/scratch' }],
      resources: { limits: { cpu: '500m', memory: '64Mi' } },
      ports: [{ containerPort: 8080 }],
    }],
  });
  const pod = await waitFor('web running', () => podNamed('web-node1')?.status?.phase === 'Running' && podNamed('web-node1'));
  expect(pod.metadata.namespace).toBe('default');
  expect(pod.spec.nodeName).toBe('node1');
  expect(pod.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
  expect(pod.metadata.annotations).toMatchObject({ 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': pod.metadata.uid });
  expect(new Date(pod.metadata.annotations!['kubernetes.io/config.seen']).getTime()).toBeGreaterThan(0);
  expect(pod.spec.tolerations).toContainEqual({ operator: 'Exists', effect: 'NoExecute' });
  expect(pod.spec.restartPolicy).toBe('Always');
  expect(pod.status).toMatchObject({ podIP: '127.0.0.1', hostIP: '127.0.0.1', qosClass: 'Guaranteed' });
  expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  const cs = pod.status!.containerStatuses![0];
  expect(cs).toMatchObject({ name: 'c', ready: true, restartCount: 0, image: images.busybox });
  expect(cs.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);

  const sandboxes = await cri.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': pod.metadata.uid! } });
  expect(sandboxes).toHaveLength(1);
  expect(sandboxes[0]).toMatchObject({ state: 'SANDBOX_READY', metadata: { name: 'web-node1', namespace: 'default', attempt: 0 } });
  expect(sandboxes[0].labels).toMatchObject({ 'io.kubernetes.pod.name': 'web-node1', 'io.kubernetes.pod.namespace': 'default' });
  const st = await cri.containerStatus(cs.containerID!.slice('containerd://'.length));
  expect(st.labels['io.kubernetes.container.name']).toBe('c');
  expect(st.annotations['io.kubernetes.container.restartCount']).toBe('0');
  expect(st.annotations['io.kubernetes.container.hash']).toMatch(/^[0-9a-f]+$/);
  const logDir = path.join(tmp, 'pod-logs', `default_web-node1_${pod.metadata.uid}`);
  expect(st.logPath).toBe(path.join(logDir, 'c/0.log'));
  // The legacy symlink log shippers read.
  expect(fs.readlinkSync(path.join(tmp, 'containers', `web-node1_default_c-${st.id}.log`))).toBe(st.logPath);
  const out = await waitFor('host file', () => fs.existsSync(path.join(tmp, 'hostdir/out')) && fs.readFileSync(path.join(tmp, 'hostdir/out'), 'utf8'));
  expect(out).toBe('hello world from /tmp in web-node1\n');
  expect(fs.readFileSync(st.logPath, 'utf8')).toMatch(/ stdout F hello world from \/tmp in web-node1\n/);
  expect(fs.readFileSync(path.join(tmp, 'root/pods', pod.metadata.uid!, 'volumes/kubernetes.io~empty-dir/scratch/x'), 'utf8')).toContain('hello');
});

test('hidden files, sub-directories and broken manifests are skipped; broken ones are logged', async () => {
  fs.writeFileSync(path.join(manifests, '.hidden.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: hidden}\nspec: {containers: [{name: c, image: x}]}\n');
  fs.mkdirSync(path.join(manifests, 'sub'));
  fs.writeFileSync(path.join(manifests, 'sub/x.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: sub}\nspec: {containers: [{name: c, image: x}]}\n');
  fs.writeFileSync(path.join(manifests, 'broken.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: [unclosed\n');
  fs.writeFileSync(path.join(manifests, 'invalid.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: invalid}\nspec: {}\n');
  await waitFor('broken logged', () => logs.some((l) => l.includes('Could not process manifest file') && l.includes('broken.yaml') && l.includes("couldn't parse as pod")));
  await waitFor('invalid logged', () => logs.some((l) => l.includes('invalid.yaml') && l.includes('invalid pod: [spec.containers: Required value]')));
  const names = podsOf(mgr).map((p) => p.metadata.name);
  expect(names).not.toEqual(expect.arrayContaining(['hidden-node1']));
  expect(names).not.toContain('sub-node1');
  expect(names).not.toContain('invalid-node1');
  expect(podNamed('web-node1')?.status?.phase).toBe('Running'); // unaffected
  for (const f of ['.hidden.yaml', 'broken.yaml', 'invalid.yaml']) fs.rmSync(path.join(manifests, f));
  fs.rmSync(path.join(manifests, 'sub'), { recursive: true });
});

test('a killed container is restarted, then held in CrashLoopBackOff with upstream back-off', async () => {
  writeManifest('crash.yaml', 'crash', { hostNetwork: true, terminationGracePeriodSeconds: 2, containers: [sleeper()] });
  const first = await waitFor('crash running', () => podNamed('crash-node1')?.status?.phase === 'Running' && podNamed('crash-node1'));
  const uid = first.metadata.uid!;
  const id0 = first.status!.containerStatuses![0].containerID!.slice(13);
  process.kill(taskPid(id0), 'SIGKILL');
  // First restart is immediate.
  const second = await waitFor('restart 1', () => {
    const cs = podNamed('crash-node1')?.status?.containerStatuses?.[0];
    return cs?.restartCount === 1 && cs.state.running && cs;
  });
  expect(second.lastState.terminated).toMatchObject({ exitCode: 137, reason: 'Error' });
  process.kill(taskPid(second.containerID!.slice(13)), 'SIGKILL');
  const waiting = await waitFor('back-off', () => podNamed('crash-node1')?.status?.containerStatuses?.[0].state.waiting);
  expect(waiting).toEqual({ reason: 'CrashLoopBackOff', message: `back-off 10s restarting failed container=c pod=crash-node1_default(${uid})` });
  const third = await waitFor('restart 2 after back-off', () => {
    const cs = podNamed('crash-node1')?.status?.containerStatuses?.[0];
    return cs?.restartCount === 2 && cs.state.running && cs;
  }, 40_000);
  const st = await cri.containerStatus(third.containerID!.slice(13));
  expect(st.metadata?.attempt).toBe(2);
  // GC keeps one dead instance per container.
  await waitFor('gc', async () => (await cri.listContainers({ labelSelector: { 'io.kubernetes.pod.uid': uid } })).length === 2);
});

test.each([
  ['Never', 0, 'Succeeded', 'Completed'],
  ['Never', 3, 'Failed', 'Error'],
  ['OnFailure', 0, 'Succeeded', 'Completed'],
])('restartPolicy %s with exit %d ends %s', async (policy, code, phase, reason) => {
  const name = `done-${policy.toLowerCase()}-${code}`;
  writeManifest(`${name}.yaml`, name, {
    hostNetwork: true, restartPolicy: policy,
    containers: [{ name: 'c', image: images.busybox, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', `exit ${code}`] }],
  });
  const pod = await waitFor(`${name} ${phase}`, () => podNamed(`${name}-node1`)?.status?.phase === phase && podNamed(`${name}-node1`));
  const cs = pod.status!.containerStatuses![0];
  expect(cs.state.terminated).toMatchObject({ exitCode: code, reason });
  expect(cs.restartCount).toBe(0);
  await waitFor('sandbox stopped', async () => {
    const s = await cri.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': pod.metadata.uid! } });
    return s.length === 1 && s[0].state === 'SANDBOX_NOTREADY';
  });
  expect(pod.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
  fs.rmSync(path.join(manifests, `${name}.yaml`));
});

test('OnFailure restarts a failing container', async () => {
  writeManifest('onfail.yaml', 'onfail', {
    hostNetwork: true, restartPolicy: 'OnFailure',
    containers: [{ name: 'c', image: images.busybox, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'exit 1'] }],
  });
  const cs = await waitFor('restarted', () => {
    const c = podNamed('onfail-node1')?.status?.containerStatuses?.[0];
    return c && c.restartCount >= 1 && c;
  });
  expect(cs.lastState.terminated?.exitCode ?? cs.state.terminated?.exitCode).toBe(1);
  expect(podNamed('onfail-node1')?.status?.phase).not.toBe('Succeeded');
  fs.rmSync(path.join(manifests, 'onfail.yaml'));
});

test('imagePullPolicy Never with an absent image waits with ErrImageNeverPull', async () => {
  writeManifest('never.yaml', 'neverpull', { hostNetwork: true, containers: [{ name: 'c', image: 'does/not:exist', imagePullPolicy: 'Never' }] });
  const w = await waitFor('waiting', () => podNamed('neverpull-node1')?.status?.containerStatuses?.[0].state.waiting?.reason === 'ErrImageNeverPull'
    && podNamed('neverpull-node1')!.status!.containerStatuses![0].state.waiting);
  expect(w.message).toBe('Container image "does/not:exist" is not present with pull policy of Never');
  expect(podNamed('neverpull-node1')?.status?.phase).toBe('Pending');
  fs.rmSync(path.join(manifests, 'never.yaml'));
});

test('a pod-network pod gets an IP from CNI', async () => {
  writeManifest('net.yaml', 'net', { terminationGracePeriodSeconds: 2, containers: [sleeper()] });
  const pod = await waitFor('net running', () => podNamed('net-node1')?.status?.phase === 'Running' && podNamed('net-node1'));
  expect(pod.status?.podIP).toMatch(/^10\.\d+\.\d+\.\d+$/);
  fs.rmSync(path.join(manifests, 'net.yaml'));
});

test('an edited manifest replaces its pod; a removed one is stopped', async () => {
  writeManifest('edit.yaml', 'edit', { hostNetwork: true, terminationGracePeriodSeconds: 2, containers: [sleeper()] });
  const before = await waitFor('edit running', () => podNamed('edit-node1')?.status?.phase === 'Running' && podNamed('edit-node1'));
  writeManifest('edit.yaml', 'edit', { hostNetwork: true, terminationGracePeriodSeconds: 2, containers: [sleeper()] }, { labels: { v: '2' } });
  const after = await waitFor('new uid running', () => {
    const p = podNamed('edit-node1');
    return p && p.metadata.uid !== before.metadata.uid && p.status?.phase === 'Running' && p;
  });
  expect(after.status?.containerStatuses?.[0].restartCount).toBe(0);
  await waitFor('old sandbox stopped', async () => (await cri.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': before.metadata.uid! } }))
    .every((s) => s.state === 'SANDBOX_NOTREADY'));
  fs.rmSync(path.join(manifests, 'edit.yaml'));
  await waitFor('gone from pods', () => !podNamed('edit-node1'));
  await waitFor('containers stopped', async () => (await cri.listContainers({ labelSelector: { 'io.kubernetes.pod.uid': after.metadata.uid! } }))
    .every((c) => c.state === 'CONTAINER_EXITED'));
});

test('pods from a manifest URL with headers, as a single pod and as a PodList', async () => {
  const port = (httpServer.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/pod.yaml`;
  httpBody = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', items: ['u1', 'u2'].map((n) => ({ metadata: { name: n }, spec: { hostNetwork: true, terminationGracePeriodSeconds: 2, containers: [sleeper()] } })) });
  // The main agent would kill this one's pods as orphans; it is stopped here and restarted (adopting
  // its pods) by the next test. This one reads the main agent's manifests too, so that its housekeeping does not
  // kill their pods as orphans (the next test checks they survive with their containers).
  await mgr.stop();
  const m = createPodManager(options({
    config: config({ staticPodURL: url, staticPodURLHeader: { a: ['hello'], b: ['again', 'beautiful'] } }),
  }));
  await m.start();
  try {
    const [u1, u2] = await waitFor('url pods running', () => {
      const ps = ['u1-node1', 'u2-node1'].map((n) => podNamed(n, m));
      return ps.every((p) => p?.status?.phase === 'Running') && ps;
    });
    expect(u1!.metadata.annotations?.['kubernetes.io/config.source']).toBe('http');
    expect(u1!.spec.tolerations ?? []).not.toContainEqual({ operator: 'Exists', effect: 'NoExecute' });
    expect(u2!.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(httpHeaders.filter(([k]) => k.toLowerCase() !== 'host' && k.toLowerCase() !== 'connection')).toEqual([['a', 'hello'], ['b', 'again'], ['b', 'beautiful']]);
    httpStatus = 404;
    httpBody = 'nope';
    await waitFor('404 logged', () => logs.some((l) => l.includes(`${url}: 404 Not Found`)));
    expect(podNamed('u1-node1', m)).toBeDefined(); // an error changes nothing
  } finally {
    await m.stop();
  }
});

test('a restarted agent adopts running pods: same container IDs, no restarts', async () => {
  const before = podNamed('web-node1')!.status!.containerStatuses![0];
  await mgr.stop(); // (already stopped by the previous test when run in order)
  mgr = createPodManager(options());
  await mgr.start();
  const after = await waitFor('adopted', () => podNamed('web-node1')?.status?.phase === 'Running' && podNamed('web-node1')!.status!.containerStatuses![0]);
  expect(after.containerID).toBe(before.containerID);
  expect(after.restartCount).toBe(before.restartCount);
  const all = await cri.listContainers({ labelSelector: { 'io.kubernetes.pod.name': 'web-node1' } });
  expect(all).toHaveLength(1);
});

test('maxPods rejects pods beyond the limit as OutOfpods', async () => {
  const dir = path.join(tmp, 'manifests-max');
  fs.mkdirSync(dir);
  for (const n of ['m1', 'm2']) {
    fs.writeFileSync(path.join(dir, `${n}.json`), JSON.stringify({ metadata: { name: n }, spec: { hostNetwork: true, containers: [{ name: 'c', image: 'does/not:exist', imagePullPolicy: 'Never' }] } }));
  }
  const m = createPodManager(options({ config: config({ staticPodPath: dir, maxPods: 1 }), housekeepingPeriodMs: 3_600_000 }));
  await m.start();
  try {
    const rejected = await waitFor('rejected', () => podsOf(m).find((p) => p.status?.phase === 'Failed'));
    expect(rejected.status).toMatchObject({ reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1" });
    expect(podsOf(m)).toHaveLength(2);
  } finally {
    await m.stop();
  }
});
