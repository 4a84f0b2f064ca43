// Table tests of the pod runtime's pure parts: manifest decoding and defaults, quantities, back-off,
// image references, variable expansion.
import { decodeFilePod, decodeUrlPods } from '../src/pods/decode';
import { Backoff } from '../src/pods/backoff';
import type { CriClient, PodSandboxConfig } from '@cl/cri';
import type { Pod } from '../src/pods/api-types';
import { applyDefaultImageTag, ImagePuller } from '../src/pods/image-puller';
import { linuxResources, parseQuantity } from '../src/pods/quantity';
import { containerConfig, expandVars, type RuntimeSpecContext } from '../src/pods/runtime-spec';
import { logTail } from '../src/pods/termination-message';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

describe('static pod decoding', () => {
  const yaml = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: c\n    image: busybox\n';

  test('defaults, name suffix, content-hash UID and file toleration', () => {
    const pod = decodeFilePod(yaml, '/m/web.yaml', 'Node1');
    expect(pod.metadata).toMatchObject({ name: 'web-node1', namespace: 'default' });
    expect(pod.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(pod.metadata.annotations?.['kubernetes.io/config.hash']).toBe(pod.metadata.uid);
    expect(pod.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, nodeName: 'Node1' });
    expect(pod.spec.containers[0]).toMatchObject({ imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
    expect(pod.spec.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
    expect(pod.status?.phase).toBe('Pending');
  });

  test('the UID follows content, path and node, and is kept when set', () => {
    const a = decodeFilePod(yaml, '/m/web.yaml', 'n').metadata.uid;
    expect(decodeFilePod(yaml, '/m/web.yaml', 'n').metadata.uid).toBe(a);
    expect(decodeFilePod(yaml + '  restartPolicy: Never\n', '/m/web.yaml', 'n').metadata.uid).not.toBe(a);
    expect(decodeFilePod(yaml, '/m/other.yaml', 'n').metadata.uid).not.toBe(a);
    expect(decodeFilePod(yaml, '/m/web.yaml', 'm').metadata.uid).not.toBe(a);
    expect(decodeFilePod(yaml.replace('name: web', 'name: web\n  uid: fixed'), '/m/web.yaml', 'n').metadata.uid).toBe('fixed');
  });

  test.each([
    ['busybox', 'Always'],
    ['busybox:latest', 'Always'],
    ['busybox:1.36', 'IfNotPresent'],
    ['registry:5000/busybox', 'Always'],
    ['busybox@sha256:abc', 'IfNotPresent'],
  ])('image %s defaults imagePullPolicy to %s', (image, policy) => {
    const pod = decodeFilePod(yaml.replace('image: busybox', `image: "${image}"`), '/f', 'n');
    expect(pod.spec.containers[0].imagePullPolicy).toBe(policy);
  });

  test.each([
    ['metadata: [unclosed', /^\/f: couldn't parse as pod\(.+\), please check config file$/],
    ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {}\n', /^invalid pod: \[spec\.containers: Required value\]$/],
    ['kind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c}]}\n', /^invalid pod: \[spec\.containers\[0\]\.image: Required value\]$/],
    ['kind: Pod\nspec: {containers: [{name: c, image: i}]}\n', /^invalid pod: \[metadata\.name: Invalid value: "-n": a lowercase RFC 1123 subdomain/],
    ['kind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: i}, {name: c, image: i}]}\n', /spec\.containers\[1\]\.name: Duplicate value: "c"/],
    ['kind: Pod\nmetadata: {name: x}\nspec: {restartPolicy: Sometimes, containers: [{name: c, image: i}]}\n', /spec\.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"/],
    ['kind: Pod\nmetadata: {name: x}\nspec: {serviceAccountName: sa, volumes: [{name: s, secret: {secretName: s}}], containers: [{name: c, image: i}]}\n',
      /^pod "x-n" has forbidden references to API objects: Secret volume "s", ServiceAccount "sa"$/],
    ['kind: Pod\nmetadata: {name: x}\nspec: {volumes: [{name: p, projected: {sources: [{serviceAccountToken: {path: t}}, {configMap: {name: c}}, {secret: {name: s}}, {downwardAPI: {items: []}}]}}], containers: [{name: c, image: i, envFrom: [{secretRef: {name: e}}]}]}\n',
      /^pod "x-n" has forbidden references to API objects: Secret "e", configMap projected volume "p", secret projected volume "p", serviceAccountToken projected volume "p"$/],
    ['kind: PodList\nitems: []\n', /couldn't parse as pod\(kind "PodList" is not Pod\)/],
    ['kind: Pod\nmetadata: {name: x}\nspec: {initContainers: [{name: c, image: i}], containers: [{name: c, image: i}]}\n', /^invalid pod: \[spec\.initContainers\[0\]\.name: Duplicate value: "c"\]$/],
    ['kind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: i, restartPolicy: Always}]}\n',
      /^invalid pod: \[spec\.containers\[0\]\.restartPolicy: Forbidden: may not be set for non-init containers\]$/],
    ['kind: Pod\nmetadata: {name: x}\nspec: {initContainers: [{name: i, image: i, restartPolicy: Never}], containers: [{name: c, image: i}]}\n',
      /^invalid pod: \[spec\.initContainers\[0\]\.restartPolicy: Unsupported value: "Never": supported values: "Always"\]$/],
    ['kind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: i}], ephemeralContainers: [{name: dbg, image: i}]}\n',
      /^invalid pod: \[spec\.ephemeralContainers: Forbidden: cannot be set on create\]$/],
  ])('%j is refused', (text, message) => {
    expect(() => decodeFilePod(text, '/f', 'n')).toThrow(message);
  });

  test('a URL body may be a PodList; no NoExecute toleration for http pods', () => {
    const pods = decodeUrlPods(JSON.stringify({ kind: 'PodList', items: [{ metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i' }] } }] }), 'http://x/p', 'n');
    expect(pods.map((p) => p.metadata.name)).toEqual(['a-n']);
    expect(pods[0].spec.tolerations).toBeUndefined();
    expect(() => decodeUrlPods('[1', 'http://x/p', 'n')).toThrow(/^http:\/\/x\/p: received '\[1', but couldn't parse as single/);
  });
});

describe('quantities and cgroup values', () => {
  test.each([
    ['100m', 0.1], ['1', 1], ['1.5', 1.5], ['128Mi', 128 * 2 ** 20], ['1G', 1e9], ['2e3', 2000], ['1Ki', 1024],
  ])('%s = %d', (q, n) => expect(parseQuantity(q)).toBeCloseTo(n));

  test('bad quantities are refused', () => expect(() => parseQuantity('1.2.3')).toThrow('quantities must match'));

  test.each([
    [{}, {}, { cpuShares: 2 }],
    [{ cpu: '500m', memory: '64Mi' }, {}, { cpuShares: 512, cpuPeriod: 100000, cpuQuota: 50000, memoryLimitInBytes: 67108864 }],
    [{}, { cpu: '250m' }, { cpuShares: 256 }],
    [{ cpu: '1m' }, {}, { cpuShares: 2, cpuPeriod: 100000, cpuQuota: 1000 }],
  ])('limits %j requests %j -> %j', (limits, requests, out) => expect(linuxResources(limits, requests)).toEqual(out));
});

describe('crash-loop back-off (10s doubling to 5m)', () => {
  test('delays between restarts: 0, 10s, 20s, 40s, ... 5m, and a reset after 10 minutes', () => {
    let now = 1_000_000;
    const b = new Backoff(10_000, 300_000, () => now);
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      expect(b.isInBackOffSince('k', now)).toBe(i > 0);
      const wait = b.get('k');
      seen.push(wait);
      now += wait;
      expect(b.isInBackOffSince('k', now - wait)).toBe(false);
      b.next('k', now);
    }
    expect(seen).toEqual([0, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    now += 601_000;
    b.next('k', now);
    expect(b.get('k')).toBe(10_000);
  });
});

describe('image references and $(VAR) expansion', () => {
  test.each([
    ['busybox', 'busybox:latest'], ['busybox:1', 'busybox:1'], ['localhost:5000/x', 'localhost:5000/x:latest'], ['x@sha256:ab', 'x@sha256:ab'],
  ])('%s -> %s', (a, b) => expect(applyDefaultImageTag(a)).toBe(b));

  test.each([
    ['$(A) and $(B)', 'a and $(B)'], ['$$(A)', '$(A)'], ['$(A', '$(A'], ['x$(A)y', 'xay'],
  ])('%s -> %s', (s, out) => expect(expandVars(s, new Map([['A', 'a']]))).toBe(out));
});

describe('image pulls: --serialize-image-pulls, --registry-qps and --registry-burst', () => {
  // A stand-in image service whose pulls finish only when the test releases them.
  function fakeCri() {
    const pending: (() => void)[] = [];
    let active = 0;
    let most = 0;
    const started: string[] = [];
    const cri = {
      imageStatus: async () => null,
      pullImage: (spec: { image: string }) => new Promise<string>((resolve) => {
        started.push(spec.image);
        most = Math.max(most, ++active);
        pending.push(() => { active--; resolve(`sha256:${spec.image}`); });
      }),
    };
    return { cri: cri as unknown as CriClient, pending, started, most: () => most };
  }
  const pod = { metadata: { uid: 'u', name: 'p', namespace: 'default' }, spec: { containers: [] } } as unknown as Pod;
  const tick = () => new Promise((r) => setTimeout(r, 20));
  const pullAll = (puller: ImagePuller, n: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => puller.ensureImage(pod, { name: `c${i}`, image: `img${i}:v1` }, {} as PodSandboxConfig)));

  test.each([
    [true, 1],
    [false, 3],
  ])('serialize=%s: at most %d pulls at once', async (serialize, expected) => {
    const f = fakeCri();
    const all = pullAll(new ImagePuller(f.cri, { serialize, qps: 0, burst: 0 }, () => undefined), 3);
    while (f.started.length < 3 || f.pending.length) {
      await tick();
      f.pending.shift()?.();
    }
    expect(await all).toEqual(['sha256:img0:v1', 'sha256:img1:v1', 'sha256:img2:v1']);
    expect(f.most()).toBe(expected);
  });

  test('a burst of 2 lets two pulls start at once; the third waits for a token at 1 per second', async () => {
    jest.useFakeTimers();
    try {
      const f = fakeCri();
      const all = pullAll(new ImagePuller(f.cri, { serialize: false, qps: 1, burst: 2 }, () => undefined), 3);
      await jest.advanceTimersByTimeAsync(10);
      expect(f.started).toEqual(['img0:v1', 'img1:v1']);
      await jest.advanceTimersByTimeAsync(1000);
      expect(f.started).toEqual(['img0:v1', 'img1:v1', 'img2:v1']);
      for (const done of f.pending.splice(0)) done();
      expect(await all).toHaveLength(3);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('image pull back-off', () => {
  test('a failed pull is retried after 10s, then 20s; in between the image waits in ImagePullBackOff', async () => {
    jest.useFakeTimers();
    try {
      let pulls = 0;
      const cri = { imageStatus: async () => null, pullImage: async () => { pulls++; throw new Error('rpc error: code = Unknown desc = no route'); } };
      const puller = new ImagePuller(cri as unknown as CriClient, { serialize: true, qps: 0, burst: 0 }, () => undefined);
      const pod = { metadata: { uid: 'u', name: 'p', namespace: 'default' }, spec: { containers: [] } } as unknown as Pod;
      const attempt = () => puller.ensureImage(pod, { name: 'c', image: 'x:v1' }, {} as PodSandboxConfig).catch((e: { reason: string }) => e.reason);
      const seen: string[] = [];
      for (const advance of [0, 9_000, 1_001, 19_000, 1_001]) {
        jest.advanceTimersByTime(advance);
        seen.push(`${await attempt()}/${pulls}`);
      }
      expect(seen).toEqual(['ErrImagePull/1', 'ImagePullBackOff/1', 'ErrImagePull/2', 'ImagePullBackOff/2', 'ErrImagePull/3']);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('log tail for FallbackToLogsOnError, across rotation', () => {
  const row = (text: string, tag = 'F') => `2026-11-22T10:00:00.000000000Z stdout ${tag} ${text}\n`;
  const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => row(String(from + i))).join('');
  const want = (from: number, to: number, ...more: string[]) => [...Array.from({ length: to - from + 1 }, (_, i) => String(from + i)), ...more, ''].join('\n');
  test.each([
    ['live log only', { '0.log': lines(1, 100) }, want(21, 100)],
    ['empty live log: only the newest rotated file is read', { '0.log': '', '0.log.20261122-100000': lines(1, 50), '0.log.20261122-100001': lines(51, 100) }, want(51, 100)],
    ['a few live lines after the rotated ones', { '0.log': row('boom'), '0.log.20261122-100001': lines(1, 100) }, want(22, 100, 'boom')],
    ['enough live lines: rotated files are not read', { '0.log': lines(101, 180), '0.log.20261122-100001': row('old') }, want(101, 180)],
    ['compressed rotations are not read', { '0.log': row('boom'), '0.log.20261122-100001.gz': 'not text' }, 'boom\n'],
    ['a partial line joins the next row', { '0.log': row('bo', 'P') + row('om') }, 'boom\n'],
    ['a last line still being written is left out', { '0.log': row('done') + '2026-11-22T10:00:00Z stdout F cut' }, 'done\n'],
    ['no log at all', {}, ''],
  ])('%s', (_name, files: Record<string, string>, expected) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-logtail-'));
    try {
      for (const [n, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, n), text);
      expect(logTail(path.join(dir, '0.log'))).toBe(expected);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('at most 2048 bytes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-logtail-'));
    try {
      fs.writeFileSync(path.join(dir, '0.log'), Array.from({ length: 80 }, (_, i) => row(`${i}:${'x'.repeat(60)}`)).join(''));
      const out = logTail(path.join(dir, '0.log'));
      expect(Buffer.byteLength(out)).toBe(2048);
      expect(out.endsWith(`79:${'x'.repeat(60)}\n`)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the process namespace of an ephemeral container with a target (upstream namespacesForPod)', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clet-ns-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const ctx = { podLogsDir: path.join(tmp, 'logs'), containerLogsDir: path.join(tmp, 'containers'), rootDir: path.join(tmp, 'root'), resolvConf: '', clusterDNS: [],
    clusterDomain: '', nodeIP: '127.0.0.1', security: { seccompDefault: false, seccompProfileRoot: '' } } as RuntimeSpecContext;

  test.each<[string, Partial<Pod['spec']>, string | undefined, object]>([
    ['no target: its own', {}, undefined, { pid: 'CONTAINER' }],
    ['a target: the target\'s', {}, 'c0ffee', { pid: 'TARGET', targetId: 'c0ffee' }],
    ['a pod sharing one process namespace keeps it', { shareProcessNamespace: true }, 'c0ffee', { pid: 'POD' }],
    ['a host-PID pod keeps the host\'s', { hostPID: true }, 'c0ffee', { pid: 'NODE' }],
  ])('%s', async (_what, spec, target, want) => {
    const pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { hostNetwork: true, containers: [{ name: 'c', image: 'i' }], ...spec } } as Pod;
    const ns = (await containerConfig(ctx, pod, { name: 'dbg', image: 'i' }, 'i', 0, '', new Map(), undefined, target)).linux?.securityContext?.namespaceOptions;
    expect(ns).toEqual({ network: 'NODE', ipc: 'POD', ...want });
  });
});
