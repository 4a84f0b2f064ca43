// Hollow nodes (dist/hollow-main.js) against the built API server with its scheduler and controllers: they
// register, keep their leases, run the pods bound to them through the real agent's pod runtime over an in-memory
// CRI, report them Running and confirm their deletion. A few nodes, so the hollow mode stays in the normal suite
// (bench/density runs hundreds).
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { waitFor } from '@cl/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { kubectlHelpers, startApiserverProcess, writeKubeconfig, type ApiserverProcess } from '../../apiserver/test/harness';

jest.setTimeout(300_000);

const HOLLOW = path.join(__dirname, '..', 'dist', 'hollow-main.js');
let api: ApiserverProcess;
let hollow: ChildProcess | undefined;
let out = '';
const { ok, file } = kubectlHelpers(() => api);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON, read field by field
const json = <T = any>(...args: string[]): T => JSON.parse(ok(...args, '-o', 'json')) as T;
const until = <T>(what: string, fn: () => T | undefined | false) =>
  waitFor(async () => fn(), what, 1500, 200).catch((e: Error) => {
    throw new Error(`${e.message}\nhollow:\n${out.slice(-3000)}\napiserver:\n${api.output().slice(-3000)}`);
  });

beforeAll(async () => {
  api = await startApiserverProcess([]);
  writeKubeconfig(api);
  // The admin kubeconfig the harness writes is what the nodes use (the server's loopback-free admin token).
  hollow = spawn(process.execPath, [HOLLOW, `--clconfig=${api.kubeconfig}`, '--nodes=3', '--node-name-prefix=hollow-', '--node-lease-duration-seconds=8'], { stdio: ['ignore', 'pipe', 'pipe'] });
  hollow.stdout!.on('data', (d) => (out += d));
  hollow.stderr!.on('data', (d) => (out += d));
  await until('the hollow nodes to start', () => /3 hollow nodes started/.test(out));
});

afterAll(async () => {
  if (hollow && hollow.exitCode === null) {
    const exited = new Promise((r) => hollow!.once('exit', r));
    hollow.kill('SIGTERM');
    await exited;
  }
  await api?.cleanup();
});

test('the nodes register and turn Ready, with their hollow facts, and renew their leases', async () => {
  await until('three Ready nodes', () => {
    const nodes = json('get', 'nodes').items;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return nodes.length === 3 && nodes.every((n: any) => n.status.conditions.some((c: any) => c.type === 'Ready' && c.status === 'True'));
  });
  const node = json('get', 'node', 'hollow-1');
  expect(node.metadata.labels).toMatchObject({ 'cl.io/hollow': 'true', 'cl.io/hostname': 'hollow-1' });
  expect(node.status.capacity).toMatchObject({ cpu: '4', memory: '16Gi', pods: '110' });
  expect(node.status.nodeInfo.containerRuntimeVersion).toBe('hollow://0.1.0');
  expect(node.status.addresses).toContainEqual({ type: 'InternalIP', address: '10.255.0.2' });
  const first = json('get', 'lease', '-n', 'kube-node-lease', 'hollow-0').spec.renewTime;
  await until('a lease renewal', () => json('get', 'lease', '-n', 'kube-node-lease', 'hollow-0').spec.renewTime !== first);
});

test('a Deployment is scheduled across the hollow nodes and its pods run, with addresses from each node\'s range', async () => {
  ok('create', 'deployment', 'web', '--image=busybox', '--replicas=6', '--', 'sleep', '3600');
  await until('6 available replicas', () => json('get', 'deployment', 'web').status?.availableReplicas === 6);
  const pods = json('get', 'pods', '-l', 'app=web').items;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  for (const p of pods as any[]) {
    expect(p.status.phase).toBe('Running');
    expect(p.spec.nodeName).toMatch(/^hollow-[012]$/);
    const index = Number(p.spec.nodeName.slice('hollow-'.length));
    expect(p.status.podIP).toMatch(new RegExp(`^10\\.64\\.${index}\\.\\d+$`));
    expect(p.status.containerStatuses[0]).toMatchObject({ name: 'busybox', ready: true, started: true, containerID: expect.stringMatching(/^hollow:\/\//) });
    expect(p.status.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('True');
  }
  // The scheduler spreads them: least-allocated scoring puts pods on every node.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  expect(new Set(pods.map((p: any) => p.spec.nodeName)).size).toBe(3);
});

test('a pod bound directly to a node runs there, and deleting it is confirmed by the node', async () => {
  const manifest = file('direct.json', JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'direct' }, spec: { nodeName: 'hollow-2', containers: [{ name: 'c', image: 'busybox' }] } }));
  expect(ok('create', '-f', manifest)).toBe('pod/direct created\n');
  await until('the pod to run', () => json('get', 'pod', 'direct').status?.phase === 'Running');
  expect(json('get', 'pod', 'direct').status.hostIP).toBe('10.255.0.3');
  // kubectl waits until the pod is gone: the node stopped it and deleted it with grace 0.
  expect(ok('delete', 'pod', 'direct')).toBe('pod "direct" deleted\n');
});

test('deleting the Deployment removes its pods: the nodes stop them and confirm', async () => {
  ok('delete', 'deployment', 'web');
  await until('no pods of web', () => json('get', 'pods', '-l', 'app=web').items.length === 0);
});

test('SIGTERM stops every node and the process exits 0', async () => {
  const exited = new Promise<number | null>((r) => hollow!.once('exit', (code) => r(code)));
  hollow!.kill('SIGTERM');
  expect(await exited).toBe(0);
});
