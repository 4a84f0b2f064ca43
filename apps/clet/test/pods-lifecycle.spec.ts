// The pod manager against a real private containerd, beyond the basics of pods.spec.ts: container GC
// policies (--maximum-dead-containers*, --minimum-container-ttl-duration), image GC
// (--image-gc-*-threshold, --minimum-image-ttl-duration), log rotation (--container-log-max-size/-files),
// init containers, limits, grace periods, pull errors, termination messages, DNS and a single-file path.
// One file on purpose: each spec file starts its own containerd, and the suite shares 2 cores.
import { waitFor as poll } from '@cl/testing';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { CriClient } from '@cl/cri';
import type { PodSandboxConfig } from '@cl/cri';
import type { CletConfiguration } from '../src/config/types';
import { createPodManager, PodManager, PodManagerOptions, Pod } from '../src/pods';
import { collectContainers, collectImages } from '../src/pods/gc';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';
import { entryText } from '../src/log';

jest.setTimeout(120_000);

let ctd: PrivateContainerd;
let cri: CriClient;
let images: { busybox: string; pause: string; unused: string };
let tmp: string;
let manifests: string;
const logs: string[] = [];
let mgr: PodManager;

const UID = 'io.kubernetes.pod.uid';
const NAME = 'io.kubernetes.container.name';

/** The shared poller, with this suite's argument order and time bound. */
function waitFor<T>(what: string, fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  return poll(fn, what, Math.ceil(timeoutMs / 100));
}

const podNamed = (name: string) => (mgr.pods() as Pod[]).find((p) => p.metadata.name === name);

function writeManifest(name: string, spec: object): void {
  const tmpFile = path.join(manifests, `.${name}.tmp`);
  fs.writeFileSync(tmpFile, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec }));
  fs.renameSync(tmpFile, path.join(manifests, `${name}.json`));
}

function managerOptions(config: Partial<CletConfiguration> = {}, extra: Partial<PodManagerOptions> = {}): PodManagerOptions {
  return {
    config: {
      staticPodPath: manifests, staticPodURL: '', staticPodURLHeader: {}, fileCheckFrequency: '1s', httpCheckFrequency: '1s',
      syncFrequency: '1m0s', containerRuntimeEndpoint: ctd.endpoint, imageServiceEndpoint: '', runtimeRequestTimeout: '2m0s',
      serializeImagePulls: true, registryPullQPS: 5, registryBurst: 10,
      // Small logs and a fast monitor so rotation happens within the test.
      containerLogMaxSize: '4Ki', containerLogMaxFiles: 3, containerLogMonitorInterval: '300ms',
      // Any use above 1% of the image filesystem triggers image GC down to 0%: every unused image goes.
      imageGCHighThresholdPercent: 1, imageGCLowThresholdPercent: 0, imageMinimumGCAge: '0s',
      maxPods: 110, podLogsDir: path.join(tmp, 'pod-logs'), runOnce: false, resolvConf: path.join(tmp, 'resolv.conf'),
      clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local',
      ...config,
    } as CletConfiguration,
    nodeName: 'node1', log: (l) => logs.push(entryText(l)), rootDir: path.join(tmp, 'root'), nodeIP: '127.0.0.1',
    podInfraContainerImage: images.pause, containerLogsDir: path.join(tmp, 'manager-containers'),
    // GC runs only where a test asks for it, so the container GC table owns its containers and the
    // busybox image is not collected while no pod uses it.
    containerGCPeriodMs: 3_600_000, imageGCPeriodMs: 3_600_000,
    // No orphan killing either: the container GC table makes pods of its own through the CRI.
    housekeepingPeriodMs: 3_600_000,
    ...extra,
  };
}

beforeAll(async () => {
  ctd = await startContainerd();
  images = ensureTestImages(ctd.socket, { unused: true });
  cri = await CriClient.connect({ runtimeEndpoint: ctd.endpoint });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-pods-life-'));
  manifests = path.join(tmp, 'manifests');
  fs.mkdirSync(manifests);
  fs.writeFileSync(path.join(tmp, 'resolv.conf'), '# the node\nnameserver 192.0.2.53\nsearch corp.example\noptions timeout:2\n');
  mgr = createPodManager(managerOptions());
  await mgr.start();
});

afterAll(async () => {
  await mgr?.stop();
  cri?.close();
  await ctd?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// ---- container GC: a pod's dead instances made directly through the CRI ----

async function sandbox(uid: string, logDir: string): Promise<{ id: string; config: PodSandboxConfig }> {
  const config: PodSandboxConfig = {
    metadata: { name: `gc-${uid}`, namespace: 'default', uid, attempt: 0 }, logDirectory: logDir,
    labels: { [UID]: uid }, linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } },
  };
  fs.mkdirSync(logDir, { recursive: true });
  return { id: await cri.runPodSandbox(config), config };
}

const containersDir = () => path.join(tmp, 'containers');
const legacyLink = (sb: PodSandboxConfig, name: string, id: string) => path.join(containersDir(), `${sb.metadata.name}_default_${name}-${id}.log`);

/** Runs `name` to completion `n` times in the sandbox; returns the container IDs, oldest first. */
async function deadInstances(sb: { id: string; config: PodSandboxConfig }, uid: string, name: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let attempt = 0; attempt < n; attempt++) {
    fs.mkdirSync(path.join(sb.config.logDirectory!, name), { recursive: true });
    const id = await cri.createContainer(sb.id, {
      metadata: { name, attempt }, image: { image: images.busybox }, command: ['true'],
      labels: { [UID]: uid, [NAME]: name }, logPath: `${name}/${attempt}.log`,
    }, sb.config);
    await cri.startContainer(id);
    await waitFor(`${name} exited`, async () => (await cri.containerStatus(id)).state === 'CONTAINER_EXITED');
    // The legacy symlink the agent would have made.
    fs.mkdirSync(containersDir(), { recursive: true });
    fs.symlinkSync(path.join(sb.config.logDirectory!, name, `${attempt}.log`), legacyLink(sb.config, name, id));
    ids.push(id);
  }
  return ids;
}

test.each([
  // [policy, kept instances of a (3 dead), kept of b (2 dead, newer than a's)]
  ['defaults (1 per container, no total)', { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, 1, 1],
  ['2 per container', { minAgeMs: 0, maxPerPodContainer: 2, maxContainers: -1 }, 2, 2],
  ['no limits', { minAgeMs: 0, maxPerPodContainer: -1, maxContainers: -1 }, 3, 2],
  ['2 in total: an even share per container', { minAgeMs: 0, maxPerPodContainer: -1, maxContainers: 2 }, 1, 1],
  ['1 in total: the newest overall', { minAgeMs: 0, maxPerPodContainer: -1, maxContainers: 1 }, 0, 1],
  ['younger than the minimum TTL: nothing', { minAgeMs: 3_600_000, maxPerPodContainer: 0, maxContainers: 0 }, 3, 2],
])('container GC, %s', async (_name, policy, keptA, keptB) => {
  const stamp = `${Date.now()}`;
  const live = `live${stamp}`;
  const gone = `gone${stamp}`;
  const logRoot = path.join(tmp, 'gc-logs');
  const sbLive = await sandbox(live, path.join(logRoot, `default_gc-${live}_${live}`));
  const a = await deadInstances(sbLive, live, 'a', 3);
  const b = await deadInstances(sbLive, live, 'b', 2);
  const sbGone = await sandbox(gone, path.join(logRoot, `default_gc-${gone}_${gone}`));
  const g = await deadInstances(sbGone, gone, 'g', 1);
  await cri.stopPodSandbox(sbGone.id);

  // A dangling link of a container that no longer exists.
  fs.mkdirSync(containersDir(), { recursive: true });
  const dangling = path.join(containersDir(), `old_default_x-${'f'.repeat(64)}.log`);
  fs.symlinkSync(path.join(tmp, 'nowhere.log'), dangling);

  const removed = await collectContainers(cri, policy, (uid) => uid === live, (l) => logs.push(entryText(l)), { podLogsDir: logRoot, containerLogsDir: containersDir() });

  const left = new Set((await cri.listContainers()).map((c) => c.id));
  // The newest instances are the ones kept.
  expect(a.filter((id) => left.has(id))).toEqual(a.slice(a.length - keptA));
  expect(b.filter((id) => left.has(id))).toEqual(b.slice(b.length - keptB));
  const expectGone = policy.minAgeMs === 0;
  expect(left.has(g[0])).toBe(!expectGone);
  expect(removed.containers).toHaveLength(3 - keptA + 2 - keptB + (expectGone ? 1 : 0));
  // Removed containers take their log files with them; a deleted pod's sandbox and log directory go too.
  for (const [name, ids] of [['a', a], ['b', b]] as const) {
    ids.forEach((id, attempt) => {
      expect(fs.existsSync(path.join(sbLive.config.logDirectory!, name, `${attempt}.log`))).toBe(left.has(id));
      expect(fs.existsSync(legacyLink(sbLive.config, name, id))).toBe(left.has(id)); // the symlink with it
    });
  }
  expect(fs.existsSync(legacyLink(sbGone.config, 'g', g[0]))).toBe(!expectGone);
  expect(fs.readdirSync(containersDir())).not.toContain(path.basename(dangling));
  const sandboxes = new Set((await cri.listPodSandbox()).map((s) => s.id));
  expect(sandboxes.has(sbLive.id)).toBe(true);
  expect(sandboxes.has(sbGone.id)).toBe(!expectGone);
  expect(fs.existsSync(sbGone.config.logDirectory!)).toBe(!expectGone);
  expect(fs.existsSync(sbLive.config.logDirectory!)).toBe(true);

  for (const id of [...a, ...b, ...g]) if (left.has(id)) await cri.removeContainer(id);
  fs.rmSync(containersDir(), { recursive: true, force: true });
  for (const sb of [sbLive, sbGone]) {
    await cri.stopPodSandbox(sb.id).catch(() => undefined);
    await cri.removePodSandbox(sb.id).catch(() => undefined);
  }
});

test('container GC leaves a start under way alone: a created container of a desired pod keeps the exited one it replaces', async () => {
  const uid = `restarting${Date.now()}`;
  const sb = await sandbox(uid, path.join(tmp, 'gc-logs', `default_gc-${uid}_${uid}`));
  const [exited] = await deadInstances(sb, uid, 'c', 1);
  // The next instance, created by the pod worker and not started yet.
  const created = await cri.createContainer(sb.id, { metadata: { name: 'c', attempt: 1 }, image: { image: images.busybox }, command: ['true'], labels: { [UID]: uid, [NAME]: 'c' }, logPath: 'c/1.log' }, sb.config);
  const removed = await collectContainers(cri, { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, (u) => u === uid, (l) => logs.push(entryText(l)));
  expect(removed.containers).toEqual([]);
  const left = new Set((await cri.listContainers()).map((c) => c.id));
  expect([left.has(exited), left.has(created)]).toEqual([true, true]);
  // Once it has run, it is the newest dead instance, and the older one goes.
  await cri.startContainer(created);
  await waitFor('the new instance to exit', async () => (await cri.containerStatus(created)).state === 'CONTAINER_EXITED');
  expect((await collectContainers(cri, { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, (u) => u === uid, (l) => logs.push(entryText(l)))).containers).toEqual([exited]);
  await cri.removeContainer(created);
  await cri.stopPodSandbox(sb.id);
  await cri.removePodSandbox(sb.id);
});

// ---- log rotation and image GC through the pod manager ----

test('a container log is rotated at --container-log-max-size, keeping --container-log-max-files files', async () => {
  writeManifest('chatty', {
    hostNetwork: true, terminationGracePeriodSeconds: 2,
    containers: [{
      name: 'c', image: images.busybox, imagePullPolicy: 'IfNotPresent',
      // About 3 KiB of output per round, more than the 4Ki limit within two monitor periods.
      command: ['sh', '-c', 'trap "exit 0" TERM; i=0; while true; do i=$((i+1)); for j in $(seq 1 120); do echo "round $i line $j"; done; sleep 0.3; done'],
    }],
  });
  const pod = await waitFor('chatty running', () => podNamed('chatty-node1')?.status?.phase === 'Running' && podNamed('chatty-node1'));
  const dir = path.join(tmp, 'pod-logs', `default_chatty-node1_${pod.metadata.uid}`, 'c');
  let most = 0;
  const listing = await waitFor('two compressed rotations', () => {
    const names = fs.readdirSync(dir).sort();
    most = Math.max(most, names.length);
    return names.filter((n) => n.endsWith('.gz')).length >= 1 && names.length === 3 && names;
  });
  // The live log, one plain rotated file (still readable by a log shipper) and maxFiles-2 = 1 gzipped.
  expect(listing[0]).toMatch(/^0\.log$/);
  expect(listing.slice(1).map((n) => n.replace(/\d{8}-\d{6}/, 'TS')).sort()).toEqual(['0.log.TS', '0.log.TS.gz']);
  expect(most).toBeLessThanOrEqual(3);
  const gz = listing.find((n) => n.endsWith('.gz'))!;
  const plain = listing.find((n) => /^0\.log\.\d{8}-\d{6}$/.test(n))!;
  expect(gz < plain).toBe(true); // the compressed one is the older
  const old = zlib.gunzipSync(fs.readFileSync(path.join(dir, gz))).toString('utf8');
  expect(old).toMatch(/^\S+ stdout F round \d+ line \d+$/m);
  expect(Buffer.byteLength(old)).toBeGreaterThanOrEqual(4096);
  // After ReopenContainerLog the runtime writes to a fresh live file.
  await waitFor('new output in the live log', () => /stdout F round \d+ line \d+/.test(fs.readFileSync(path.join(dir, '0.log'), 'utf8')));
  expect(logs.filter((l) => l.includes('Failed to rotate log'))).toEqual([]);
  await waitFor('still at most 3 files', () => fs.readdirSync(dir).length <= 3);
});

test.each([
  ['GC disabled at a high threshold of 100', { highThresholdPercent: 100, lowThresholdPercent: 80, minAgeMs: 0 }],
  ['an image younger than --minimum-image-ttl-duration', { highThresholdPercent: 1, lowThresholdPercent: 0, minAgeMs: 3_600_000 }],
])('image GC keeps an unused image: %s', async (_name, policy) => {
  const removed = await collectImages(cri, { ...policy, pinnedImages: [images.pause] }, new Map(), (l) => logs.push(entryText(l)));
  expect(removed).toEqual([]);
  expect(await cri.imageStatus({ image: images.unused })).not.toBeNull();
});

test('image GC over the high threshold removes unused images; in-use and sandbox images stay', async () => {
  expect(podNamed('chatty-node1')?.status?.phase).toBe('Running'); // uses the busybox image
  const unusedId = (await cri.imageStatus({ image: images.unused }))!.id;
  // A second agent on the same manifests (it adopts the running pod) whose image GC runs every 200ms;
  // the first one's image GC period is an hour.
  const gcLogs: string[] = [];
  const second = createPodManager(managerOptions({ containerLogMonitorInterval: '1h' }, {
    imageGCPeriodMs: 200, relistPeriodMs: 3_600_000, housekeepingPeriodMs: 3_600_000, log: (l) => gcLogs.push(entryText(l)),
  }));
  await second.start();
  try {
    await waitFor('unused image removed', () => gcLogs.some((l) => l.startsWith('"Removed unused image"')));
  } finally {
    await second.stop();
  }
  expect(gcLogs).toContainEqual(expect.stringMatching(/^"Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold" usage=\d+ highThreshold=1 amountToFree=\d+ lowThreshold=0$/));
  expect(gcLogs).toContain(`"Removed unused image" imageID="${unusedId}"`);
  expect(await cri.imageStatus({ image: images.unused })).toBeNull();
  expect(await cri.imageStatus({ image: images.busybox })).not.toBeNull();
  expect(await cri.imageStatus({ image: images.pause })).not.toBeNull();
  expect(podNamed('chatty-node1')?.status?.containerStatuses?.[0].restartCount).toBe(0);
  fs.rmSync(path.join(manifests, 'chatty.json'));
  await waitFor('chatty gone', () => !podNamed('chatty-node1'));
});

// ---- init containers ----

const sh = (name: string, script: string, extra: object = {}) => ({
  name, image: images.busybox, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script], ...extra,
});
const sleepForever = 'trap "exit 0" TERM; while true; do sleep 1; done';

test('init containers run in order to completion before the app containers; a sidecar keeps running', async () => {
  const gate = path.join(tmp, 'gate');
  fs.mkdirSync(gate);
  writeManifest('init', {
    hostNetwork: true, terminationGracePeriodSeconds: 2,
    volumes: [{ name: 'work', emptyDir: {} }, { name: 'gate', hostPath: { path: gate } }],
    initContainers: [
      sh('side', sleepForever, { restartPolicy: 'Always' }),
      sh('i1', 'echo one >> /work/order', { volumeMounts: [{ name: 'work', mountPath: '/work' }] }),
      sh('i2', 'while [ ! -f /gate/go ]; do sleep 0.1; done; echo two >> /work/order',
        { volumeMounts: [{ name: 'work', mountPath: '/work' }, { name: 'gate', mountPath: '/gate' }] }),
    ],
    containers: [sh('c', `cat /work/order; ${sleepForever}`, { volumeMounts: [{ name: 'work', mountPath: '/work' }] })],
  });
  const waiting = await waitFor('i2 running', () => {
    const p = podNamed('init-node1');
    return p?.status?.initContainerStatuses?.[2].state.running && p;
  });
  expect(waiting.status?.phase).toBe('Pending');
  const [side, i1] = waiting.status!.initContainerStatuses!;
  expect(side).toMatchObject({ name: 'side', ready: true, started: true, state: { running: {} } });
  expect(i1).toMatchObject({ name: 'i1', ready: true, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
  expect(waiting.status?.containerStatuses?.[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
  expect(waiting.status?.conditions?.find((c) => c.type === 'Initialized'))
    .toMatchObject({ status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [i2]' });
  const uid = waiting.metadata.uid!;
  const names = async () => (await cri.listContainers({ labelSelector: { [UID]: uid } })).map((c) => c.labels[NAME]).sort();
  expect(await names()).toEqual(['i1', 'i2', 'side']); // no app container yet

  fs.writeFileSync(path.join(gate, 'go'), '');
  const running = await waitFor('init running', () => podNamed('init-node1')?.status?.phase === 'Running' && podNamed('init-node1'));
  expect(running.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
  expect(running.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  expect(running.status!.initContainerStatuses!.map((s) => Object.keys(s.state)[0])).toEqual(['running', 'terminated', 'terminated']);
  expect(await names()).toEqual(['c', 'i1', 'i2', 'side']);
  const logFile = path.join(tmp, 'pod-logs', `default_init-node1_${uid}`, 'c', '0.log');
  await waitFor('app output', () => fs.existsSync(logFile) && /stdout F one\n.* stdout F two\n/.test(fs.readFileSync(logFile, 'utf8')));
  fs.rmSync(path.join(manifests, 'init.json'));
  await waitFor('init gone', () => !podNamed('init-node1'));
});

test.each([
  ['Never', 'Failed'],
  ['Always', 'Pending'],
])('a failing init container with restartPolicy %s: the pod is %s and the app never starts', async (policy, phase) => {
  const name = `badinit-${policy.toLowerCase()}`;
  writeManifest(name, {
    hostNetwork: true, restartPolicy: policy, terminationGracePeriodSeconds: 2,
    initContainers: [sh('i1', 'exit 3')], containers: [sh('c', sleepForever)],
  });
  const pod = await waitFor(`${name} ${phase}`, () => {
    const p = podNamed(`${name}-node1`);
    const i1 = p?.status?.initContainerStatuses?.[0];
    const settled = policy === 'Never' ? i1?.state.terminated : (i1?.restartCount ?? 0) >= 1;
    return p?.status?.phase === phase && settled && p;
  });
  const i1 = pod.status!.initContainerStatuses![0];
  expect(i1.state.terminated ?? i1.lastState.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
  expect(pod.status?.containerStatuses?.[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
  const containers = await cri.listContainers({ labelSelector: { [UID]: pod.metadata.uid! } });
  expect(containers.map((c) => c.labels[NAME])).not.toContain('c');
  if (policy === 'Never') {
    expect(containers).toHaveLength(1);
    await waitFor('sandbox stopped', async () => (await cri.listPodSandbox({ labelSelector: { [UID]: pod.metadata.uid! } }))
      .every((s) => s.state === 'SANDBOX_NOTREADY'));
  }
  fs.rmSync(path.join(manifests, `${name}.json`));
  await waitFor(`${name} gone`, () => !podNamed(`${name}-node1`));
});

// ---- limits, termination, pulls, health ----

test('resource limits reach the container cgroup', async () => {
  writeManifest('limits', {
    hostNetwork: true, restartPolicy: 'Never',
    containers: [sh('c', 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.shares',
      { resources: { limits: { cpu: '250m', memory: '48Mi' } } })],
  });
  const pod = await waitFor('limits done', () => podNamed('limits-node1')?.status?.phase === 'Succeeded' && podNamed('limits-node1'));
  expect(pod.status?.qosClass).toBe('Guaranteed');
  const out = fs.readFileSync(path.join(tmp, 'pod-logs', `default_limits-node1_${pod.metadata.uid}`, 'c', '0.log'), 'utf8');
  expect(out.split('\n').filter(Boolean).map((l) => l.split(' ').slice(3).join(' '))).toEqual([String(48 * 1024 * 1024), '25000', '256']);
  fs.rmSync(path.join(manifests, 'limits.json'));
  await waitFor('limits gone', () => !podNamed('limits-node1'));
});

test('removing a pod stops its containers with the grace period: SIGTERM first, SIGKILL after it', async () => {
  writeManifest('grace', {
    hostNetwork: true, terminationGracePeriodSeconds: 2,
    containers: [sh('polite', sleepForever), sh('stubborn', 'trap "" TERM; while true; do sleep 1; done')],
  });
  const pod = await waitFor('grace running', () => podNamed('grace-node1')?.status?.phase === 'Running' && podNamed('grace-node1'));
  const ids = Object.fromEntries(pod.status!.containerStatuses!.map((c) => [c.name, c.containerID!.slice('containerd://'.length)]));
  fs.rmSync(path.join(manifests, 'grace.json'));
  const [polite, stubborn] = await waitFor('both stopped', async () => {
    const st = await Promise.all([cri.containerStatus(ids.polite), cri.containerStatus(ids.stubborn)]);
    return st.every((s) => s.state === 'CONTAINER_EXITED') && st;
  });
  expect(polite.exitCode).toBe(0); // left on SIGTERM
  expect(stubborn.exitCode).toBe(137); // killed once the grace period ran out
  await waitFor('sandbox stopped', async () => (await cri.listPodSandbox({ labelSelector: { [UID]: pod.metadata.uid! } }))
    .every((s) => s.state === 'SANDBOX_NOTREADY'));
});

test('an image that cannot be pulled waits in ErrImagePull, then ImagePullBackOff', async () => {
  // A registry address on loopback where nothing listens: the pull fails at once, without traffic elsewhere.
  const image = '127.0.0.1:1/nothing:v1';
  writeManifest('nopull', { hostNetwork: true, containers: [{ name: 'c', image, imagePullPolicy: 'IfNotPresent' }] });
  const first = await waitFor('ErrImagePull', () => podNamed('nopull-node1')?.status?.containerStatuses?.[0].state.waiting?.reason === 'ErrImagePull'
    && podNamed('nopull-node1')!.status!.containerStatuses![0].state.waiting!);
  expect(first.message).toMatch(new RegExp(`^Failed to pull image "${image}": rpc error: code = \\w+ desc = `));
  expect(podNamed('nopull-node1')?.status?.phase).toBe('Pending');
  const backoff = await waitFor('ImagePullBackOff', () => podNamed('nopull-node1')?.status?.containerStatuses?.[0].state.waiting?.reason === 'ImagePullBackOff'
    && podNamed('nopull-node1')!.status!.containerStatuses![0].state.waiting!);
  expect(backoff.message).toBe(`Back-off pulling image "${image}"`);
  expect(logs.some((l) => l.startsWith('"Failed to pull image"') && l.includes(image))).toBe(true);
  expect(mgr.syncLoopHealthy()).toBeNull(); // the loop runs whatever the pods do
  fs.rmSync(path.join(manifests, 'nopull.json'));
  await waitFor('nopull gone', () => !podNamed('nopull-node1'));
});

test('the syncloop health check fails once the loop has not run for max(2 x syncFrequency, 5m)', async () => {
  let now = Date.now();
  const m = createPodManager(managerOptions({ staticPodPath: path.join(tmp, 'no-manifests'), syncFrequency: '4m0s' }, {
    now: () => now, relistPeriodMs: 3_600_000, log: () => undefined,
  }));
  await m.start();
  try {
    expect(m.syncLoopHealthy()).toBeNull();
    now += 8 * 60_000; // exactly 2 x syncFrequency: still healthy
    expect(m.syncLoopHealthy()).toBeNull();
    now += 1;
    expect(m.syncLoopHealthy()?.message).toBe('sync Loop took longer than expected');
  } finally {
    await m.stop();
  }
});

test('termination messages come from the termination-log file, or from the log tail with FallbackToLogsOnError', async () => {
  writeManifest('msgs', {
    hostNetwork: true, restartPolicy: 'Never',
    containers: [
      sh('file', 'printf bye > /dev/termination-log; exit 3'),
      sh('logs', 'seq 1 100; echo boom; exit 1', { terminationMessagePolicy: 'FallbackToLogsOnError' }),
      sh('both', 'printf mine > /dev/termination-log; echo boom; exit 1', { terminationMessagePolicy: 'FallbackToLogsOnError' }),
      sh('fine', 'echo ok', { terminationMessagePolicy: 'FallbackToLogsOnError' }),
    ],
  });
  const lastLines = [...Array.from({ length: 79 }, (_, i) => String(i + 22)), 'boom', ''].join('\n'); // the last 80 lines
  const expected = { file: 'bye', logs: lastLines, both: 'mine', fine: undefined };
  let msg: Record<string, string | undefined> = {};
  // The status is read again shortly after an exit, when the runtime has written the last output.
  await waitFor('messages', () => {
    const pod = podNamed('msgs-node1');
    if (pod?.status?.phase !== 'Failed') return false;
    msg = Object.fromEntries(pod.status.containerStatuses!.map((c) => [c.name, c.state.terminated?.message]));
    return JSON.stringify(msg) === JSON.stringify(expected);
  }, 20_000).catch(() => undefined);
  expect(msg).toEqual(expected);
  fs.rmSync(path.join(manifests, 'msgs.json'));
  await waitFor('msgs gone', () => !podNamed('msgs-node1'));
});

test('a log-tail termination message reaches back across a log rotation that happened before the exit', async () => {
  const gate = path.join(tmp, 'rotation-gate');
  fs.mkdirSync(gate);
  // 300 lines (well over the 4Ki limit), then a wait for the test, which opens the gate once the live log
  // has been rotated, so the last line is the only one in the new live file.
  writeManifest('rotmsg', {
    hostNetwork: true, restartPolicy: 'Never',
    volumes: [{ name: 'gate', hostPath: { path: gate } }],
    containers: [sh('c', 'seq 1 300; while [ ! -f /gate/go ]; do sleep 0.1; done; echo boom; exit 1',
      { terminationMessagePolicy: 'FallbackToLogsOnError', volumeMounts: [{ name: 'gate', mountPath: '/gate' }] })],
  });
  const pod = await waitFor('rotmsg running', () => podNamed('rotmsg-node1')?.status?.phase === 'Running' && podNamed('rotmsg-node1'));
  const dir = path.join(tmp, 'pod-logs', `default_rotmsg-node1_${pod.metadata.uid}`, 'c');
  await waitFor('rotated', () => fs.readdirSync(dir).some((n) => /^0\.log\.\d{8}-\d{6}$/.test(n)));
  fs.writeFileSync(path.join(gate, 'go'), '');
  const terminated = await waitFor('rotmsg failed', () => podNamed('rotmsg-node1')?.status?.phase === 'Failed'
    && podNamed('rotmsg-node1')!.status!.containerStatuses![0].state.terminated!);
  expect(fs.readFileSync(path.join(dir, '0.log'), 'utf8')).toMatch(/^\S+ stdout F boom\n$/); // alone in the live file
  expect(terminated.message).toBe([...Array.from({ length: 79 }, (_, i) => String(i + 222)), 'boom', ''].join('\n'));
  fs.rmSync(path.join(manifests, 'rotmsg.json'));
  await waitFor('rotmsg gone', () => !podNamed('rotmsg-node1'));
});

test('activeDeadlineSeconds: a pod active longer is stopped and Failed with DeadlineExceeded, and not restarted', async () => {
  writeManifest('deadline', { hostNetwork: true, terminationGracePeriodSeconds: 1, activeDeadlineSeconds: 3, containers: [sh('c', sleepForever)] });
  const running = await waitFor('deadline running', () => podNamed('deadline-node1')?.status?.phase === 'Running' && podNamed('deadline-node1'));
  const failed = await waitFor('deadline failed', () => podNamed('deadline-node1')?.status?.phase === 'Failed' && podNamed('deadline-node1'));
  expect(failed.status).toMatchObject({ reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' });
  // Stopped at the deadline counted from the pod's start, not before.
  const finishedAt = Date.parse(failed.status!.containerStatuses![0].state.terminated!.finishedAt!);
  expect(finishedAt - Date.parse(running.status!.startTime!)).toBeGreaterThanOrEqual(3000);
  // restartPolicy Always does not bring it back.
  const uid = failed.metadata.uid!;
  await new Promise((r) => setTimeout(r, 1500));
  const containers = await cri.listContainers({ labelSelector: { [UID]: uid } });
  expect(containers.map((c) => c.state)).toEqual(['CONTAINER_EXITED']);
  fs.rmSync(path.join(manifests, 'deadline.json'));
  await waitFor('deadline gone', () => !podNamed('deadline-node1'));
});

test('activeDeadlineSeconds: a pod that finished before its deadline keeps its phase', async () => {
  writeManifest('quick', { hostNetwork: true, restartPolicy: 'Never', activeDeadlineSeconds: 2, containers: [sh('c', 'true')] });
  await waitFor('quick succeeded', () => podNamed('quick-node1')?.status?.phase === 'Succeeded');
  await new Promise((r) => setTimeout(r, 3000));
  expect(podNamed('quick-node1')?.status).toMatchObject({ phase: 'Succeeded' });
  expect(podNamed('quick-node1')?.status?.reason).toBeUndefined();
  fs.rmSync(path.join(manifests, 'quick.json'));
  await waitFor('quick gone', () => !podNamed('quick-node1'));
});

let sandboxRefusals = 0;
test.each([
  ['a RuntimeClass (none is served)', { runtimeClassName: 'gvisor' }, 'runtimeclass.node.k8s.io "gvisor" not found'],
  ['a user namespace of its own', { hostUsers: false }, 'hostUsers: false (a user namespace of its own) is not supported by this node agent (feature gate UserNamespacesSupport is off here)'],
  ['pod-level resources', { resources: { limits: { cpu: '1' } } }, 'pod-level resources (spec.resources) are not supported by this node agent (feature gate PodLevelResources is off here)'],
  ['resource claims', { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] }, 'resource claims (spec.resourceClaims) are not supported by this node agent (feature gate DynamicResourceAllocation is off here)'],
  ['an overhead without a RuntimeClass', { overhead: { cpu: '100m' } }, 'spec.overhead comes from a RuntimeClass, and this cluster serves none'],
  ['an FQDN host name longer than the kernel keeps', { hostname: 'h'.repeat(40), subdomain: 's'.repeat(20), setHostnameAsFQDN: true },
    `failed to construct FQDN from pod hostname and cluster domain, FQDN ${'h'.repeat(40)}.${'s'.repeat(20)}.default.svc.cluster.local is too long (64 characters is the max, 87 characters requested)`],
])('a pod asking for %s: its sandbox fails with the reason and it waits in ContainerCreating, nothing runs', async (_what, extra, reason) => {
  const name = `nosb${++sandboxRefusals}`;
  writeManifest(name, { terminationGracePeriodSeconds: 1, ...extra, containers: [sh('c', sleepForever)] });
  await waitFor('the sandbox failure logged', () => logs.some((l) => l.includes('Failed to create pod sandbox') && l.includes(JSON.stringify(reason).slice(1, -1))));
  const pod = podNamed(`${name}-node1`)!;
  expect(pod.status?.containerStatuses?.[0].state).toEqual({ waiting: { reason: 'ContainerCreating' } });
  expect(await cri.listPodSandbox({ labelSelector: { [UID]: pod.metadata.uid! } })).toEqual([]);
  fs.rmSync(path.join(manifests, `${name}.json`));
  await waitFor(`${name} gone`, () => !podNamed(`${name}-node1`));
});

test('DNS, /etc/hosts and hostname: ClusterFirst uses --cluster-dns; host-network pods fall back to --resolv-conf', async () => {
  const script = 'cat /etc/resolv.conf; echo ---; cat /etc/hosts; echo ---; hostname';
  const aliases = [{ ip: '10.1.2.3', hostnames: ['foo.local', 'bar.local'] }, { ip: '10.1.2.4', hostnames: ['baz.local'] }];
  writeManifest('dns', { restartPolicy: 'Never', containers: [sh('c', script)] });
  writeManifest('fqdn', { restartPolicy: 'Never', hostname: 'web', subdomain: 'sub', setHostnameAsFQDN: true, hostAliases: aliases, containers: [sh('c', script)] });
  writeManifest('hostdns', { restartPolicy: 'Never', hostNetwork: true, hostAliases: aliases.slice(0, 1), containers: [sh('c', 'cat /etc/resolv.conf; echo ---; cat /etc/hosts')] });
  const out = async (name: string) => {
    const pod = await waitFor(`${name} done`, () => podNamed(`${name}-node1`)?.status?.phase === 'Succeeded' && podNamed(`${name}-node1`));
    const log = fs.readFileSync(path.join(tmp, 'pod-logs', `default_${name}-node1_${pod.metadata.uid}`, 'c', '0.log'), 'utf8');
    return { pod, text: log.split('\n').filter(Boolean).map((l) => l.split(' ').slice(3).join(' ')).join('\n') };
  };
  const dns = await out('dns');
  const ip = dns.pod.status!.podIP!;
  expect({ ip, logs: ip ? [] : logs }).toEqual({ ip: expect.stringMatching(/^10\./), logs: [] }); // the agent's log on failure
  const [resolv, hosts, hostname] = dns.text.split('\n---\n');
  // The runtime writes the file (containerd puts search first); the lines are what the agent asked for.
  const dnsLines = (t: string) => t.split('\n').filter((l) => /^(nameserver|search|options)/.test(l)).sort();
  expect(dnsLines(resolv)).toEqual([
    'nameserver 10.96.0.10', 'options ndots:5', 'search default.svc.cluster.local svc.cluster.local cluster.local corp.example',
  ]);
  expect(hosts).toBe(['# Kubernetes-managed hosts file.', '127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet', 'fe00::0\tip6-mcastprefix', 'fe00::1\tip6-allnodes', 'fe00::2\tip6-allrouters', `${ip}\tdns-node1`].join('\n'));
  expect(hostname).toBe('dns-node1');
  // A subdomain gives the pod a domain in the cluster; setHostnameAsFQDN makes the FQDN its host name. Host aliases
  // follow the managed entries.
  const fqdn = await out('fqdn');
  const [, fqdnHosts, fqdnName] = fqdn.text.split('\n---\n');
  const fqdnIP = fqdn.pod.status!.podIP!;
  expect(fqdnHosts.split('\n').slice(7)).toEqual([`${fqdnIP}\tweb.sub.default.svc.cluster.local\tweb`, '', '# Entries added by HostAliases.', '10.1.2.3\tfoo.local\tbar.local', '10.1.2.4\tbaz.local']);
  expect(fqdnName).toBe('web.sub.default.svc.cluster.local');
  // A host-network pod: the node's hosts file, then its aliases.
  const host = await out('hostdns');
  const [hostResolv, hostHosts] = host.text.split('\n---\n');
  expect(dnsLines(hostResolv)).toEqual(['nameserver 192.0.2.53', 'options timeout:2', 'search corp.example']);
  const nodeHosts = fs.readFileSync('/etc/hosts', 'utf8').replace(/\n$/, '');
  expect(hostHosts).toBe(['# Kubernetes-managed hosts file (host network).', nodeHosts, '', '# Entries added by HostAliases.', '10.1.2.3\tfoo.local\tbar.local'].join('\n'));
  for (const n of ['dns', 'fqdn', 'hostdns']) fs.rmSync(path.join(manifests, `${n}.json`));
  await waitFor('dns gone', () => !podNamed('dns-node1') && !podNamed('fqdn-node1') && !podNamed('hostdns-node1'));
});

test('--pod-manifest-path naming one YAML file runs that pod; removing the file stops it', async () => {
  const file = path.join(tmp, 'single.yaml');
  fs.writeFileSync(file, [
    'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: single', '  namespace: kube-system', 'spec:', '  hostNetwork: true',
    '  terminationGracePeriodSeconds: 2', '  containers:', '  - name: c', `    image: ${images.busybox}`, '    imagePullPolicy: IfNotPresent',
    `    command: [sh, -c, '${sleepForever}']`, '',
  ].join('\n'));
  const own: string[] = [];
  const m = createPodManager(managerOptions({ staticPodPath: file }, { log: (l) => own.push(entryText(l)) }));
  await m.start();
  try {
    const pod = await waitFor('single running', () => (m.pods() as Pod[]).find((p) => p.metadata.name === 'single-node1' && p.status?.phase === 'Running'));
    expect(pod.metadata.namespace).toBe('kube-system');
    fs.rmSync(file);
    await waitFor('missing path logged', () => own.some((l) => l === `"Unable to read config path" err="path does not exist, ignoring" path="${file}"`));
    await waitFor('single stopped', async () => (m.pods() as Pod[]).length === 0
      && (await cri.listContainers({ labelSelector: { [UID]: pod.metadata.uid! } })).every((c) => c.state === 'CONTAINER_EXITED'));
  } finally {
    await m.stop();
  }
});
