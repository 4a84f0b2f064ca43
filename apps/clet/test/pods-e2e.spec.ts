// End to end: the built clet binary (nx build clet) with --pod-manifest-path against a private
// containerd; pods read from the read-only server's /pods; a restart adopts the running containers.
import { waitFor as poll } from '@cl/testing';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CriClient } from '@cl/cri';
import { CletProcess, freePort, get, isListening, runClet, startClet } from './clet-harness';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(120_000);

interface PodJson { metadata: { name: string; uid: string; annotations: Record<string, string> }; status: { phase: string; containerStatuses?: { containerID?: string; restartCount: number; state: Record<string, unknown> }[] } }

let ctd: PrivateContainerd;
let images: { busybox: string };
let tmp: string;
let proc: CletProcess | undefined;
let podLogDir = ''; // the binary's default podLogsDir is /var/log/pods (a config-file field only)
let runonceLogDir = '';
const containerIds: string[] = [];
const hadContainersDir = fs.existsSync('/var/log/containers');

beforeAll(async () => {
  ctd = await startContainerd();
  images = ensureTestImages(ctd.socket);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-pods-e2e-'));
  fs.mkdirSync(path.join(tmp, 'manifests'));
});

afterAll(async () => {
  await proc?.stop();
  await ctd?.stop();
  for (const d of [podLogDir, runonceLogDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
  // The binary links container logs into /var/log/containers (upstream's fixed path): remove ours.
  for (const n of fs.existsSync('/var/log/containers') ? fs.readdirSync('/var/log/containers') : []) {
    if (containerIds.some((id) => n.endsWith(`-${id}.log`))) fs.rmSync(path.join('/var/log/containers', n), { force: true });
  }
  if (!hadContainersDir && fs.existsSync('/var/log/containers') && fs.readdirSync('/var/log/containers').length === 0) fs.rmdirSync('/var/log/containers');
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function clet(ro: number): Promise<CletProcess> {
  const p = await startClet([
    '--fail-cgroupv1=false', '--fail-swap-on=false', `--root-dir=${path.join(tmp, 'root')}`, `--cert-dir=${path.join(tmp, 'pki')}`,
    `--container-runtime-endpoint=${ctd.endpoint}`, '--hostname-override=Node1', '--address=127.0.0.1',
    `--port=${await freePort()}`, `--read-only-port=${ro}`, '--healthz-port=0',
    `--pod-manifest-path=${path.join(tmp, 'manifests')}`, '--file-check-frequency=1s',
  ]);
  if (p.child.exitCode !== null) throw new Error(`clet exited ${p.child.exitCode}: ${p.stderr()}`);
  return p;
}

async function podList(ro: number): Promise<PodJson[]> {
  const r = await get(`http://127.0.0.1:${ro}/pods`);
  expect(r.status).toBe(200);
  const list = JSON.parse(r.body) as { kind: string; apiVersion: string; items: PodJson[] };
  expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1' });
  return list.items;
}

/** The shared poller; a failure also shows the end of clet's stderr. */
function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  return poll(fn, what, Math.ceil(timeoutMs / 200), 200).catch((e: Error) => {
    throw new Error(`${e.message}; clet stderr:\n${proc?.stderr().slice(-3000)}`);
  });
}

test('a manifest runs, /pods reports it, a broken manifest is logged, and a restarted clet adopts the container', async () => {
  const ro = await freePort();
  fs.writeFileSync(path.join(tmp, 'manifests', 'web.yaml'), [
    'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', 'spec:', '  hostNetwork: true', '  terminationGracePeriodSeconds: 2', '  containers:',
    '  - name: c', `    image: ${images.busybox}`, '    imagePullPolicy: IfNotPresent', '    command: ["sh", "-c", "exec sleep 3600"]', '',
  ].join('\n'));
  fs.writeFileSync(path.join(tmp, 'manifests', 'broken.yaml'), 'kind: Pod\nmetadata: [\n');
  proc = await clet(ro);
  const pod = await waitFor('web-node1 Running on /pods', async () => (await podList(ro)).find((p) => p.metadata.name === 'web-node1' && p.status.phase === 'Running'));
  podLogDir = path.join('/var/log/pods', `default_web-node1_${pod.metadata.uid}`);
  expect(pod.metadata.annotations['kubernetes.io/config.source']).toBe('file');
  expect(pod.metadata.annotations['kubernetes.io/config.hash']).toBe(pod.metadata.uid);
  expect((await podList(ro)).map((p) => p.metadata.name)).toEqual(['web-node1']);
  expect(proc.stderr()).toContain('Could not process manifest file');
  const health = await get(`http://127.0.0.1:${ro}/healthz?verbose`);
  expect(health.status).toBe(200);
  expect(health.body).toContain('[+]syncloop ok\n');
  const containerID = pod.status.containerStatuses![0].containerID;
  expect(containerID).toMatch(/^containerd:\/\//);
  containerIds.push(containerID!.slice('containerd://'.length));
  expect(fs.readlinkSync(`/var/log/containers/web-node1_default_c-${containerIds[0]}.log`)).toBe(path.join(podLogDir, 'c', '0.log'));

  expect(await proc.stop()).toBe(0);
  // Shutdown leaves the container running.
  expect(ctd.ctr(['tasks', 'ls'])).toContain(containerID!.slice('containerd://'.length));

  proc = await clet(ro);
  const again = await waitFor('adopted', async () => (await podList(ro)).find((p) => p.metadata.name === 'web-node1' && p.status.phase === 'Running'));
  expect(again.status.containerStatuses![0].containerID).toBe(containerID);
  expect(again.status.containerStatuses![0].restartCount).toBe(0);
});

test('--runonce runs the pods, logs each result and exits 0 with the containers left running; no source update in 1s fails', async () => {
  await proc?.stop(); // the agent above would kill the runonce pod as an orphan
  proc = undefined;
  const dir = path.join(tmp, 'runonce');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'once.json'), JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'once' },
    spec: { hostNetwork: true, containers: [{ name: 'c', image: images.busybox, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'exec sleep 3600'] }] },
  }));
  const ro = await freePort();
  const common = ['--fail-cgroupv1=false', '--fail-swap-on=false', `--root-dir=${path.join(tmp, 'root')}`, `--cert-dir=${path.join(tmp, 'pki')}`,
    `--container-runtime-endpoint=${ctd.endpoint}`, '--hostname-override=node1', '--address=127.0.0.1', `--read-only-port=${ro}`, '--healthz-port=0', '--runonce'];
  const r = await runClet([...common, `--pod-manifest-path=${dir}`]);
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/"Pod started" pod="once-node1_default"/);
  expect(r.stderr).toContain('Pods started in runonce mode, exiting');
  expect(await isListening(ro)).toBe(false); // servers are not started in this mode
  const crictl = await CriClient.connect({ runtimeEndpoint: ctd.endpoint });
  try {
    const running = await crictl.listContainers({ labelSelector: { 'io.kubernetes.pod.name': 'once-node1' }, state: { state: 'CONTAINER_RUNNING' } });
    expect(running).toHaveLength(1);
    runonceLogDir = path.join('/var/log/pods', `default_once-node1_${running[0].labels['io.kubernetes.pod.uid']}`);
    containerIds.push(running[0].id);
  } finally {
    crictl.close();
  }

  // A manifest URL that never answers: no pod update within 1s.
  const hang = http.createServer(() => undefined);
  await new Promise<void>((res) => hang.listen(0, '127.0.0.1', res));
  try {
    const bad = await runClet([...common, `--manifest-url=http://127.0.0.1:${(hang.address() as AddressInfo).port}/pods`]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('runonce failed: no pod manifest update after 1s');
  } finally {
    hang.closeAllConnections();
    await new Promise((res) => hang.close(res));
  }
});
