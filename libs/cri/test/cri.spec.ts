// The CRI client against a real, private containerd (tools/containerd/harness.js).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CriClient, CriError, endpointToTarget, grpcCodeName, nanosToDate, PodSandboxConfig } from '../src';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(120_000);

describe('endpoints and errors', () => {
  test.each([
    ['unix:///run/containerd/containerd.sock', 'unix:///run/containerd/containerd.sock'],
    ['/run/x.sock', 'unix:///run/x.sock'],
  ])('%s -> %s', (endpoint, target) => {
    expect(endpointToTarget(endpoint)).toBe(target);
  });

  test.each([
    ['tcp://127.0.0.1:1234', 'protocol "tcp" not supported'],
    ['npipe:////./pipe/x', 'protocol "npipe" not supported'],
    ['relative.sock', 'endpoint "relative.sock" must be of the form unix:///path/to/socket'],
  ])('%s is refused', (endpoint, message) => {
    expect(() => endpointToTarget(endpoint)).toThrow(message);
  });

  test.each([
    [5, 'NotFound'],
    [4, 'DeadlineExceeded'],
    [14, 'Unavailable'],
  ])('gRPC code %d prints as %s', (code, name) => {
    expect(grpcCodeName(code)).toBe(name);
  });

  test.each([
    ['0', null],
    ['', null],
    ['1700000000123456789', new Date(1700000000123)],
  ])('nanosToDate(%s)', (ns, date) => {
    expect(nanosToDate(ns)).toEqual(date);
  });

  test('a missing socket fails connect with upstream wording', async () => {
    const endpoint = `unix://${path.join(os.tmpdir(), `cl-no-such-${process.pid}.sock`)}`;
    await expect(CriClient.connect({ runtimeEndpoint: endpoint, timeoutMs: 2000 }))
      .rejects.toThrow(`validate service connection: validate CRI v1 runtime API for endpoint "${endpoint}": rpc error: code = `);
  });
});

describe('against containerd', () => {
  let ctd: PrivateContainerd;
  let cri: CriClient;
  let images: { busybox: string; pause: string };
  let logDir: string;

  beforeAll(async () => {
    ctd = await startContainerd();
    images = ensureTestImages(ctd.socket);
    cri = await CriClient.connect({ runtimeEndpoint: ctd.endpoint, timeoutMs: 30_000 });
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-cri-logs-'));
  });

  afterAll(async () => {
    cri?.close();
    await ctd?.stop();
    if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
  });

  function sandboxConfig(name: string, network: 'NODE' | 'POD'): PodSandboxConfig {
    const uid = `uid-${name}`;
    fs.mkdirSync(path.join(logDir, name), { recursive: true });
    return {
      metadata: { name, uid, namespace: 'default', attempt: 0 },
      hostname: network === 'POD' ? name : '',
      logDirectory: path.join(logDir, name),
      labels: { 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.uid': uid },
      linux: { securityContext: { namespaceOptions: { network, pid: 'CONTAINER', ipc: 'POD' } } },
    };
  }

  test('Version and Status describe the runtime', async () => {
    const v = await cri.version();
    expect(v).toMatchObject({ runtimeName: 'containerd', runtimeApiVersion: 'v1' });
    const s = await cri.status();
    expect(s.status?.conditions.find((c) => c.type === 'RuntimeReady')?.status).toBe(true);
  });

  test('UpdateRuntimeConfig hands the runtime a pod CIDR', async () => {
    await expect(cri.updateRuntimeConfig('10.213.0.0/16')).resolves.toBeUndefined();
  });

  test('ImageStatus finds imported images and returns null for absent ones', async () => {
    const img = await cri.imageStatus({ image: images.busybox });
    expect(img?.repoTags).toContain(images.busybox);
    expect(Number(img?.size)).toBeGreaterThan(1_000_000);
    expect(await cri.imageStatus({ image: 'docker.io/cl/absent:none' })).toBeNull();
    const all = await cri.listImages();
    expect(all.map((i) => i.repoTags).flat()).toEqual(expect.arrayContaining([images.busybox, images.pause]));
  });

  test('a pull from an unreachable registry fails with a gRPC error', async () => {
    const err = await cri.pullImage({ image: '127.0.0.1:1/cl/nothing:1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CriError);
    expect((err as CriError).message).toMatch(/^rpc error: code = \w+ desc = .*127\.0\.0\.1:1/);
  });

  test('host-network sandbox with a container: create, start, status, logs, stop, remove', async () => {
    const sb = sandboxConfig('hostnet', 'NODE');
    const sandboxId = await cri.runPodSandbox(sb);
    const sbStatus = await cri.podSandboxStatus(sandboxId);
    expect(sbStatus.status).toMatchObject({ id: sandboxId, state: 'SANDBOX_READY', metadata: { name: 'hostnet', attempt: 0 } });
    expect(nanosToDate(sbStatus.status!.createdAt)!.getTime()).toBeGreaterThan(Date.now() - 600_000);

    const containerId = await cri.createContainer(sandboxId, {
      metadata: { name: 'c', attempt: 0 },
      image: { image: images.busybox },
      command: ['sh', '-c'],
      args: ['echo "hello $GREETING from $(pwd)"; exec sleep 3600'],
      envs: [{ key: 'GREETING', value: 'cri' }],
      workingDir: '/tmp',
      logPath: 'c/0.log',
      labels: { 'io.kubernetes.container.name': 'c' },
      annotations: { 'io.kubernetes.container.restartCount': '0' },
    }, sb);
    await cri.startContainer(containerId);
    const st = await cri.containerStatus(containerId);
    expect(st).toMatchObject({ id: containerId, state: 'CONTAINER_RUNNING', metadata: { name: 'c', attempt: 0 } });
    expect(st.logPath).toBe(path.join(logDir, 'hostnet', 'c/0.log'));

    const listed = await cri.listContainers({ labelSelector: { 'io.kubernetes.container.name': 'c' } });
    expect(listed.map((c) => c.id)).toEqual([containerId]);
    expect((await cri.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.uid': 'uid-hostnet' } })).map((s) => s.id)).toEqual([sandboxId]);

    // The CRI log format: "<RFC3339Nano> stdout F <line>".
    let log = '';
    for (let i = 0; i < 50 && !log.includes('hello'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      log = fs.existsSync(st.logPath) ? fs.readFileSync(st.logPath, 'utf8') : '';
    }
    expect(log).toMatch(/^\S+ stdout F hello cri from \/tmp$/m);

    await cri.stopContainer(containerId, 2);
    const stopped = await cri.containerStatus(containerId);
    expect(stopped.state).toBe('CONTAINER_EXITED');
    expect(stopped.exitCode).toBe(143); // 128 + SIGTERM: the runtime's first signal ended it
    await cri.removeContainer(containerId);
    await cri.stopPodSandbox(sandboxId);
    expect((await cri.podSandboxStatus(sandboxId)).status?.state).toBe('SANDBOX_NOTREADY');
    await cri.removePodSandbox(sandboxId);
    await expect(cri.podSandboxStatus(sandboxId)).rejects.toThrow(/code = NotFound/);
  });

  test('pod-network sandbox gets an IP from the bridge CNI config', async () => {
    const sandboxId = await cri.runPodSandbox(sandboxConfig('podnet', 'POD'));
    const st = await cri.podSandboxStatus(sandboxId);
    expect(st.status?.network?.ip).toMatch(/^10\.\d+\.\d+\.\d+$/);
    await cri.stopPodSandbox(sandboxId);
    await cri.removePodSandbox(sandboxId);
  });

  test('calls on unknown ids fail with NotFound', async () => {
    await expect(cri.containerStatus('nope')).rejects.toThrow(/^rpc error: code = NotFound desc = /);
    await expect(cri.startContainer('nope')).rejects.toBeInstanceOf(CriError);
  });
});
