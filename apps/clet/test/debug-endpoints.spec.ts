// The debugging and stats endpoints of the built clet binary against a private containerd, over TLS
// with client certificates and SubjectAccessReview authorization: container logs (tail, limits,
// timestamps, since, follow, previous), /logs/, /run, exec/attach/port-forward proxied to containerd's
// streaming server over WebSockets, /stats/summary, /metrics/resource, /metrics/cadvisor, /runningpods/.
// A small HTTPS server in this file stands in for the API server's SubjectAccessReview API: it allows
// alice everything and carol only the `stats` subresource, and records what it was asked.
import { waitFor as poll } from '@cl/testing';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { createCA, issueClientCert, issueServingCert, type PemPair } from '@cl/pki';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, startContainerd, type PrivateContainerd } from '../../../tools/containerd/harness';
import { freePort, get, removePodLogs, startClet, type CletProcess, type RequestOptions } from './clet-harness';
import { startExecProxy } from './debug-exec-proxy';
import { wsRequest } from './debug-ws';

jest.setTimeout(120_000);

const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const POD = 'debug-node1';

let tmp: string;
let ctd: PrivateContainerd;
let api: Server;
let alice: PemPair;
let carol: PemPair;
let proc: CletProcess;
let base: string;
let roBase: string;
let httpPort: number;
let podUid = '';
const sars: Array<{ user: string; verb: string; subresource: string }> = [];

const asAlice = (o: RequestOptions = {}): RequestOptions => ({ cert: alice.certPem, key: alice.keyPem, ...o });
const asCarol = (o: RequestOptions = {}): RequestOptions => ({ cert: carol.certPem, key: carol.keyPem, ...o });

interface PodJson { metadata: { name: string; uid: string }; status: { phase?: string; containerStatuses?: Array<{ name: string; restartCount: number; lastState: { terminated?: object } }> } }

async function pod(): Promise<PodJson | undefined> {
  const items = JSON.parse((await get(`${roBase}/pods`)).body).items as PodJson[];
  return items.find((p) => p.metadata.name === POD);
}

/** The shared poller; a failure also shows the end of clet's stderr. */
function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 80_000): Promise<T> {
  return poll(fn, what, Math.ceil(timeoutMs / 200), 200).catch((e: Error) => {
    throw new Error(`${e.message}; clet stderr:\n${proc?.stderr().slice(-3000)}`);
  });
}

/** Reads a streaming response until `enough` holds for the body so far, then hangs up. */
function readUntil(url: string, enough: (body: string) => boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ...asAlice(), rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
        if (enough(body)) {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'clet-debug-'));
  ctd = await startContainerd();
  const images = ensureTestImages(ctd.socket);
  const ca = await createCA('clet-debug-ca');
  alice = await issueClientCert(ca, { cn: 'alice' });
  carol = await issueClientCert(ca, { cn: 'carol' });
  writeFileSync(join(tmp, 'ca.pem'), ca.certPem);

  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1'] });
  api = createHttpsServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      // The agent joins the cluster through --clconfig too (nodes, leases, pods, events): this server only
      // reviews access, so everything else is not found, as from an API server that does not serve it.
      if (req.url !== '/apis/authorization.k8s.io/v1/subjectaccessreviews') {
        res.statusCode = 404;
        res.setHeader('Content-Type', 'application/json');
        return res.end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}');
      }
      const review = JSON.parse(body) as { spec: { user: string; resourceAttributes: { verb: string; subresource: string } } };
      const { user, resourceAttributes: ra } = review.spec;
      sars.push({ user, verb: ra.verb, subresource: ra.subresource });
      const allowed = user === 'alice' || (user === 'carol' && ra.subresource === 'stats');
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ ...review, status: { allowed } }));
    });
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', () => r()));
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const node = await issueClientCert(ca, { cn: 'system:node:node1', groups: ['system:nodes'] });
  writeFileSync(
    join(tmp, 'clconfig.yaml'),
    `apiVersion: v1\nkind: Config\nclusters:\n- name: t\n  cluster: {server: "https://127.0.0.1:${(api.address() as AddressInfo).port}", certificate-authority-data: ${b64(ca.certPem)}}\n` +
      `users:\n- name: n\n  user: {client-certificate-data: ${b64(node.certPem)}, client-key-data: ${b64(node.keyPem)}}\n` +
      `contexts:\n- name: t\n  context: {cluster: t, user: n}\ncurrent-context: t\n`,
  );

  httpPort = await freePort();
  mkdirSync(join(tmp, 'manifests'));
  const container = (name: string, script: string) => ({ name, image: images.busybox, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script] });
  writeFileSync(
    join(tmp, 'manifests', 'debug.json'),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'debug' },
      spec: {
        hostNetwork: true,
        terminationGracePeriodSeconds: 1,
        containers: [
          // stdout and stderr reach the log through separate pipes: a pause between them keeps their order.
          container('printer', 'i=0; while true; do echo "line $i"; sleep 0.3; echo "oops $i" >&2; i=$((i+1)); sleep 0.7; done'),
          container('web', `echo hello-from-web > /tmp/hello.txt; exec httpd -f -p 127.0.0.1:${httpPort} -h /tmp`),
          container('once', 'echo "attempt done"; sleep 1; exit 1'),
        ],
      },
    }),
  );
  const port = await freePort();
  const ro = await freePort();
  proc = await startClet([
    '--fail-cgroupv1=false',
    '--fail-swap-on=false',
    `--root-dir=${join(tmp, 'root')}`,
    `--cert-dir=${join(tmp, 'pki')}`,
    `--container-runtime-endpoint=${ctd.endpoint}`,
    '--hostname-override=node1',
    '--address=127.0.0.1',
    `--port=${port}`,
    `--read-only-port=${ro}`,
    '--healthz-port=0',
    `--pod-manifest-path=${join(tmp, 'manifests')}`,
    '--file-check-frequency=1s',
    // Short enough for the idle-stream test; every other stream here is busy or short.
    '--streaming-connection-idle-timeout=3s',
    '--anonymous-auth=false',
    `--client-ca-file=${join(tmp, 'ca.pem')}`,
    '--authorization-mode=Webhook',
    `--clconfig=${join(tmp, 'clconfig.yaml')}`,
  ]);
  if (proc.child.exitCode !== null) throw new Error(`clet exited ${proc.child.exitCode}:\n${proc.stderr()}`);
  base = `https://127.0.0.1:${port}`;
  roBase = `http://127.0.0.1:${ro}`;
  // Running, a few lines logged, and the `once` container restarted at least once (for ?previous).
  const p = await waitFor('the pod running with a restarted `once` container', async () => {
    const x = await pod();
    const once = x?.status.containerStatuses?.find((c) => c.name === 'once');
    return x?.status.phase === 'Running' && once && once.restartCount >= 1 && once.lastState.terminated ? x : undefined;
  });
  podUid = p.metadata.uid;
  await waitFor('three lines of printer output', async () => ((await get(`${base}/containerLogs/default/${POD}/printer`, asAlice())).body.match(/line/g) ?? []).length >= 3);
});

afterAll(async () => {
  await proc?.stop();
  api?.closeAllConnections();
  await new Promise((r) => api?.close(r));
  await ctd?.stop();
  removePodLogs('default', POD);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('/containerLogs', () => {
  const url = (q = '', container = 'printer') => `${base}/containerLogs/default/${POD}/${container}${q}`;

  test('the whole log, both streams, in order', async () => {
    const r = await get(url(), asAlice());
    expect(r.status).toBe(200);
    expect(r.body.startsWith('line 0\noops 0\nline 1\noops 1\n')).toBe(true);
  });

  test('tailLines (and legacy tail) return the last lines', async () => {
    const lines = (await get(url('?tailLines=2'), asAlice())).body.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    // The last two lines of the file, whichever stream wrote them.
    for (const l of lines) expect(l).toMatch(/^(line|oops) \d+$/);
    expect((await get(url('?tail=1'), asAlice())).body).toMatch(/^(line|oops) \d+\n$/);
    expect((await get(url('?tailLines=0'), asAlice())).body).toBe('');
  });

  test('timestamps prefix each line with a nine-digit RFC3339 time; limitBytes cuts the output', async () => {
    const ts = (await get(url('?timestamps=true&tailLines=1'), asAlice())).body;
    expect(ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z (line|oops) \d+\n$/);
    expect((await get(url('?limitBytes=10'), asAlice())).body).toBe('line 0\noop');
  });

  test('sinceTime in the future returns nothing, far in the past everything', async () => {
    expect((await get(url('?sinceTime=2999-01-01T00:00:00Z'), asAlice())).body).toBe('');
    expect((await get(url('?sinceTime=2000-01-01T00:00:00Z&limitBytes=7'), asAlice())).body).toBe('line 0\n');
  });

  test('follow streams lines written after the request', async () => {
    const before = (await get(url('?tailLines=1'), asAlice())).body.match(/\d+/)![0];
    const r = await readUntil(url('?follow=true&tailLines=1'), (b) => new RegExp(`line ${Number(before) + 2}\\n`).test(b));
    expect(r.status).toBe(200);
    expect(r.body).toContain(`line ${Number(before) + 2}\n`);
  });

  test('previous=true reads the last terminated instance', async () => {
    expect((await get(url('?previous=true', 'once'), asAlice())).body).toBe('attempt done\n');
    expect(await get(url('?previous=true'), asAlice())).toMatchObject({ status: 400, body: 'previous terminated container "printer" in pod "debug-node1" not found' });
  });

  test.each([
    ['/containerLogs/default/nope/printer', 404, 'pod "nope" does not exist'],
    [`/containerLogs/default/${POD}/nope`, 404, 'container "nope" not found in pod "debug-node1"'],
    [`/containerLogs/default/${POD}/printer?tailLines=-1`, 422, '{"message": "Invalid request."}'],
    [`/containerLogs/default/${POD}/printer?limitBytes=0`, 422, '{"message": "Invalid request."}'],
    [`/containerLogs/default/${POD}/printer?sinceSeconds=5&sinceTime=2000-01-01T00:00:00Z`, 422, '{"message": "Invalid request."}'],
    [`/containerLogs/default/${POD}/printer?tailLines=x`, 400, '{"message": "Unable to decode query."}'],
    [`/containerLogs/default//printer`, 400, '{"message": "Missing podID."}'],
  ])('%s -> %i', async (path, status, body) => {
    expect(await get(base + path, asAlice())).toMatchObject({ status, body });
  });
});

describe('/logs/', () => {
  test('lists /var/log and serves the pod log files beneath it', async () => {
    const list = await get(`${base}/logs/`, asAlice());
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(list.body).toContain('<a href="pods/">pods/</a>\n');
    const dir = `/logs/pods/default_${POD}_${podUid}`;
    expect(await get(base + dir, asAlice())).toMatchObject({ status: 301, headers: { location: `default_${POD}_${podUid}/` } });
    expect((await get(`${base}${dir}/`, asAlice())).body).toContain('<a href="printer/">printer/</a>');
    const file = await get(`${base}${dir}/printer/0.log`, asAlice());
    expect(file.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(file.body).toMatch(/^\S+ stdout F line 0\n\S+ stderr F oops 0\n/);
    // Dot-dot segments never leave /var/log.
    expect((await get(`${base}/logs/%2e%2e/%2e%2e/etc/passwd`, asAlice())).status).toBe(404);
  });
});

describe('/run, /exec, /attach, /portForward', () => {
  test('POST /run runs the command through ExecSync and returns its output', async () => {
    const r = await get(`${base}/run/default/${POD}/printer?cmd=echo%20hello%20run`, asAlice({ method: 'POST' }));
    expect(r).toMatchObject({ status: 200, body: 'hello run\n', headers: { 'content-type': 'application/json' } });
    expect(await get(`${base}/run/default/${POD}/printer?cmd=cat%20/nope`, asAlice({ method: 'POST' }))).toMatchObject({
      status: 500,
      body: "command 'cat /nope' exited with 1: cat: can't open '/nope': No such file or directory\n",
    });
    expect((await get(`${base}/run/default/${POD}/printer?cmd=ls`, asAlice())).status).toBe(405);
    expect(await get(`${base}/run/default/nope/printer?cmd=ls`, asAlice({ method: 'POST' }))).toMatchObject({ status: 404, body: 'pod does not exist' });
  });

  test('exec over a WebSocket: stdout, stderr and the exit status on their channels', async () => {
    const cmd = ['sh', '-c', 'echo out; echo err >&2; exit 7'].map((c) => `command=${encodeURIComponent(c)}`).join('&');
    const r = await wsRequest(`${base}/exec/default/${POD}/printer?${cmd}&stdout=1&stderr=1`, asAlice());
    expect(r.status).toBe(101);
    expect(r.channels[1]?.toString()).toBe('out\n');
    expect(r.channels[2]?.toString()).toBe('err\n');
    expect(JSON.parse(r.channels[3]!.toString())).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '7' }] } });
  });

  test('--streaming-connection-idle-timeout ends an idle stream; a busy one outlives it', async () => {
    const q = (script: string) => ['sh', '-c', script].map((c) => `command=${encodeURIComponent(c)}`).join('&');
    // Quiet for longer than the timeout: the agent hangs up before the command ends (no exit status arrives).
    const idle = await wsRequest(`${base}/exec/default/${POD}/printer?${q('echo start; sleep 20; echo never')}&stdout=1`, asAlice());
    expect(idle.status).toBe(101);
    expect(idle.channels[1]?.toString()).toBe('start\n');
    expect(idle.channels[3]).toBeUndefined();
    // A line every second for six seconds, twice the timeout in all: it runs to its exit status.
    const busy = await wsRequest(`${base}/exec/default/${POD}/printer?${q('for i in 1 2 3 4 5 6; do echo $i; sleep 1; done')}&stdout=1`, asAlice());
    expect(busy.channels[1]?.toString()).toBe('1\n2\n3\n4\n5\n6\n');
    expect(JSON.parse(busy.channels[3]!.toString())).toMatchObject({ status: 'Success' });
  });

  test('exec without an upgrade, without streams, or into a missing container', async () => {
    expect(await get(`${base}/exec/default/${POD}/printer?command=ls&stdout=1`, asAlice())).toMatchObject({ status: 500, body: 'Upgrade request required\n' });
    expect(await get(`${base}/exec/default/${POD}/printer?command=ls`, asAlice())).toMatchObject({ status: 400, body: 'you must specify at least 1 of stdin, stdout, stderr' });
    expect(await get(`${base}/exec/default/${POD}/nope?command=ls&stdout=1`, asAlice())).toMatchObject({ status: 500, body: 'container not found ("nope")' });
    expect(await wsRequest(`${base}/exec/default/nope/printer?command=ls&stdout=1`, asAlice())).toMatchObject({ status: 404, body: 'pod does not exist' });
  });

  test('kubectl 1.33 exec reaches the container through an API-server-like proxy and the node agent', async () => {
    const proxy = await startExecProxy(base, alice.certPem, alice.keyPem);
    try {
      const kc = join(tmp, 'kubectl-exec.yaml');
      writeFileSync(
        kc,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "http://127.0.0.1:${proxy.port}"}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: default}\ncurrent-context: c\n`,
      );
      // kubectl offers WebSocket v5 first, containerd 1.6's streaming server refuses it (403) and kubectl falls back to
      // SPDY. In a few loaded CI runs that SPDY exec never ended (not reproduced in hundreds of runs under CPU load
      // here): a run not ended after 30 s is killed and reported (its -v=6 trace, the streams the fixture still
      // holds, the agent's log), and tried again, up to three times; three hangs fail the test with every report.
      const hangs: string[] = [];
      const run = () =>
        new Promise<string | undefined>((resolve) =>
          execFile(KUBECTL, ['-v=6', '--kubeconfig', kc, 'exec', POD, '-c', 'printer', '--', 'sh', '-c', 'echo from-kubectl; echo to-stderr >&2'], { timeout: 30_000 }, (err, stdout, stderr) => {
            if (!err) return resolve(stdout + '|' + stderr.split('\n').filter((l) => !/^[IWE]\d{4} /.test(l)).join('\n'));
            hangs.push(`attempt ${hangs.length + 1}: ${err.message}\n${stderr}\nstreams the fixture holds:\n${proxy.openStreams().join('\n')}\nagent log:\n${proc.stderr().slice(-3000)}`);
            resolve(undefined);
          }),
        );
      let out: string | undefined;
      while (out === undefined && hangs.length < 3) out = await run();
      if (hangs.length > 0) console.warn(`kubectl exec needed ${hangs.length + 1} attempts:\n${hangs.join('\n\n')}`);
      expect(out ?? hangs.join('\n\n')).toBe('from-kubectl\n|to-stderr\n');
    } finally {
      await proxy.close();
    }
  }, 150_000);

  test('attach streams the running container output', async () => {
    const r = await wsRequest(`${base}/attach/default/${POD}/printer?stdout=1`, { ...asAlice(), until: (x) => /line \d+\n/.test(x.channels[1]?.toString() ?? '') });
    expect(r.status).toBe(101);
    expect(r.channels[1]!.toString()).toMatch(/line \d+\n/);
  });

  test('port-forward reaches a port inside the pod', async () => {
    const r = await wsRequest(`${base}/portForward/default/${POD}?port=${httpPort}`, {
      ...asAlice(),
      onOpen: (send) => send(0, 'GET /hello.txt HTTP/1.0\r\n\r\n'),
      until: (x) => (x.channels[0]?.toString() ?? '').includes('hello-from-web'),
    });
    expect(r.status).toBe(101);
    // The first message of each channel of a port names the port (little-endian).
    expect(r.first[0]?.readUInt16LE(0)).toBe(httpPort);
    // Then the pod's bytes: the answer follows the two port bytes (which may be any bytes, spaces included).
    expect(r.channels[0]!.subarray(0, 2).readUInt16LE(0)).toBe(httpPort);
    expect(r.channels[0]!.subarray(2).toString()).toMatch(/^HTTP\/1\.[01] 200 OK/);
    expect(r.channels[0]!.toString()).toContain('hello-from-web\n');
  });
});

describe('/checkpoint (ContainerCheckpoint gate)', () => {
  test('asks the runtime; its refusal is a 500 naming the container, unknown containers 404', async () => {
    const r = await get(`${base}/checkpoint/default/${POD}/printer?timeout=5`, asAlice({ method: 'POST' }));
    // containerd 1.6 has no checkpoint support: the runtime's error is passed on.
    expect(r.status).toBe(500);
    expect(r.body).toMatch(/^checkpointing of default\/debug-node1\/printer failed \(rpc error: code = \w+ desc = /);
    expect(await get(`${base}/checkpoint/default/${POD}/nope`, asAlice({ method: 'POST' }))).toMatchObject({ status: 404, body: 'container nope does not exist' });
    expect((await get(`${base}/checkpoint/default/${POD}/printer`, asAlice())).status).toBe(405);
    expect((await get(`${roBase}/checkpoint/default/${POD}/printer`, { method: 'POST' })).status).toBe(404);
  });
});

describe('stats and metrics', () => {
  test('/stats/summary reports the node and the pod with real usage', async () => {
    const s = JSON.parse((await get(`${base}/stats/summary`, asAlice())).body);
    expect(s.node).toMatchObject({ nodeName: 'node1', cpu: { usageCoreNanoSeconds: expect.any(Number) }, fs: { capacityBytes: expect.any(Number) } });
    expect(s.node.memory.workingSetBytes).toBeGreaterThan(0);
    expect(s.node.runtime.imageFs.capacityBytes).toBeGreaterThan(0);
    const p = s.pods.find((x: { podRef: { name: string } }) => x.podRef.name === POD);
    expect(p.podRef).toEqual({ name: POD, namespace: 'default', uid: podUid });
    const printer = p.containers.find((c: { name: string }) => c.name === 'printer');
    expect(printer.cpu.usageCoreNanoSeconds).toBeGreaterThan(0);
    expect(printer.memory.workingSetBytes).toBeGreaterThan(0);
    expect(printer.logs.usedBytes).toBeGreaterThan(0);
    expect(p.memory.workingSetBytes).toBeGreaterThanOrEqual(printer.memory.workingSetBytes);
    const only = JSON.parse((await get(`${base}/stats/summary?only_cpu_and_memory=true`, asAlice())).body);
    expect(only.node.fs).toBeUndefined();
    expect(only.pods[0].containers[0].rootfs).toBeUndefined();
  });

  test('/metrics/resource: node, pod and container series with timestamps', async () => {
    const r = await get(`${base}/metrics/resource`, asAlice());
    expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(r.body).toContain('# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds\n');
    expect(r.body).toMatch(/\ncontainer_cpu_usage_seconds_total\{container="printer",namespace="default",pod="debug-node1"\} [\d.e-]+ \d{13}\n/);
    expect(r.body).toMatch(/\ncontainer_memory_working_set_bytes\{container="web",namespace="default",pod="debug-node1"\} [1-9]\d* \d{13}\n/);
    expect(r.body).toMatch(/\npod_memory_working_set_bytes\{namespace="default",pod="debug-node1"\} [1-9]\d* \d{13}\n/);
    expect(r.body).toMatch(/\nnode_cpu_usage_seconds_total [\d.]+ \d{13}\n/);
    expect(r.body).toContain('\nresource_scrape_error 0\n');
  });

  test('/metrics/cadvisor and /metrics/probes', async () => {
    const c = (await get(`${base}/metrics/cadvisor`, asAlice())).body;
    expect(c).toMatch(/\nmachine_cpu_cores [1-9]\d*\n/);
    expect(c).toMatch(/\ncontainer_memory_working_set_bytes\{container="printer",id="\/[0-9a-f]{64}",image="[^"]+",name="[0-9a-f]{64}",namespace="default",pod="debug-node1"\} [1-9]/);
    expect((await get(`${base}/metrics/probes`, asAlice())).status).toBe(200);
  });

  test('/runningpods/ lists what the runtime runs', async () => {
    const list = JSON.parse((await get(`${base}/runningpods/`, asAlice())).body);
    const p = list.items.find((i: { metadata: { name: string } }) => i.metadata.name === POD);
    expect(p.metadata).toMatchObject({ namespace: 'default', uid: podUid });
    expect(p.spec.containers.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['printer', 'web']));
  });

  test('kubectl 1.33 reads /stats/summary and container logs with a client certificate', () => {
    const kc = join(tmp, 'kubectl.yaml');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "${base}", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {client-certificate-data: ${b64(alice.certPem)}, client-key-data: ${b64(alice.keyPem)}}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n`,
    );
    const summary = JSON.parse(execFileSync(KUBECTL, ['--kubeconfig', kc, 'get', '--raw', '/stats/summary'], { encoding: 'utf8' }));
    expect(summary.node.nodeName).toBe('node1');
    expect(execFileSync(KUBECTL, ['--kubeconfig', kc, 'get', '--raw', `/containerLogs/default/${POD}/printer?limitBytes=7`], { encoding: 'utf8' })).toBe('line 0\n');
  });
});

describe('authorization and the read-only server', () => {
  test.each([
    ['GET', `/containerLogs/default/${POD}/printer`, 'get', 'proxy'],
    ['GET', '/logs/', 'get', 'log'],
    ['POST', `/run/default/${POD}/printer?cmd=ls`, 'create', 'proxy'],
    ['GET', '/metrics/resource', 'get', 'metrics'],
    ['POST', `/checkpoint/default/${POD}/printer`, 'create', 'checkpoint'],
  ])('carol may not %s %s (verb %s, subresource %s)', async (method, path, verb, sub) => {
    const r = await get(base + path, asCarol({ method }));
    expect(r).toMatchObject({ status: 403, body: `Forbidden (user=carol, verb=${verb}, resource=nodes, subresource(s)=[${sub}])\n` });
    expect(sars[sars.length - 1]).toEqual({ user: 'carol', verb, subresource: sub });
  });

  test('carol may read /stats/summary; an exec upgrade is authorized before it is proxied', async () => {
    expect((await get(`${base}/stats/summary`, asCarol())).status).toBe(200);
    const ws = await wsRequest(`${base}/exec/default/${POD}/printer?command=ls&stdout=1`, asCarol());
    expect(ws).toMatchObject({ status: 403, body: 'Forbidden (user=carol, verb=get, resource=nodes, subresource(s)=[proxy])\n' });
    expect((await wsRequest(`${base}/exec/default/${POD}/printer?command=ls&stdout=1`)).status).toBe(401);
  });

  test('the read-only server refuses debugging paths, upgrades included, and serves stats', async () => {
    expect(await get(`${roBase}/containerLogs/default/${POD}/printer`)).toMatchObject({ status: 405, body: 'Debug endpoints are disabled.\n' });
    expect(await get(`${roBase}/logs/`)).toMatchObject({ status: 405 });
    const summary = JSON.parse((await get(`${roBase}/stats/summary`)).body);
    expect(summary.pods.map((p: { podRef: { name: string } }) => p.podRef.name)).toContain(POD);
    // A plain-HTTP upgrade to the read-only port gets the same 405.
    const raw = execFileSync('curl', ['-s', '-i', '-H', 'Connection: Upgrade', '-H', 'Upgrade: websocket', `${roBase}/exec/default/${POD}/printer?command=ls&stdout=1`], { encoding: 'utf8' });
    expect(raw).toMatch(/^HTTP\/1\.1 405/);
    expect(raw).toContain('Debug endpoints are disabled.');
    expect(readFileSync(join(tmp, 'pki', 'clet.crt'), 'utf8')).toContain('BEGIN CERTIFICATE');
  });
});
