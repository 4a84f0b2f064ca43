// The README as a new user follows it, on a fresh clone of the committed repository (what CI gets): the set-up,
// `npm start` bringing up a one-node cluster that kubectl 1.33 reaches with the printed kubeconfig and runs the
// printed example pod on, Ctrl-C stopping all of it, the documented npx
// commands, and `.ci/run` calling the README's test command. (`npm test` itself is what runs this suite, so it
// is not run again inside it.)
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBECTL, freePort, waitFor } from '@cl/testing';

jest.setTimeout(900_000);

const ROOT = join(__dirname, '..', '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', CL_SKIP_APT: '1' };
let dir: string;
let clone: string;
let server: ChildProcess | undefined;
let kubeconfig: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cl-quick-start-'));
  clone = join(dir, 'cl');
  execFileSync('git', ['clone', '--quiet', ROOT, clone]);
});

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    // npm, the start script and the server are one process group: stop all of it.
    const exit = new Promise((r) => server!.once('exit', r));
    process.kill(-server.pid!, 'SIGTERM');
    await exit;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The first shell block of a README section, as lines. */
function quickStart(): string[] {
  const section = README.slice(README.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
  return block.split('\n').filter(Boolean);
}

test('the Quick start shows the two commands, and CI runs the test one', () => {
  const commands = quickStart().map((l) => l.split('#')[0].trim());
  expect(commands).toEqual(['npm start', 'npm test']);
  expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/^npm test$/m);
});

test('npm start on a fresh clone sets itself up and runs a one-node cluster kubectl reaches', async () => {
  const [port, nodePort] = [await freePort(), await freePort()];
  server = spawn('npm', ['start', '--', `--secure-port=${port}`, '--bind-address=127.0.0.1', `--node-port=${nodePort}`, '--node-name=quick-start'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  server.stdout!.on('data', (d) => (out += d));
  server.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<never>((_, reject) => server!.once('exit', (code) => reject(new Error(`npm start exited ${code}:\n${out}`))));
  // The README: "npm start prints how to reach the server with kubectl".
  // The first start installs and builds everything, which on a busy 2-core machine can take many minutes: the
  // wait is bounded by the test's own timeout, not by a guess at the machine's speed.
  const command = await Promise.race([waitFor(() => /export KUBECONFIG=(\S+)\n[\s\S]*kubectl get nodes\n {2}(kubectl run .*)\n/.exec(out), 'the printed kubectl commands', 8400, 100), exited]);
  kubeconfig = command[1];
  const ready = await Promise.race([
    waitFor(() => {
      const r = spawnSync(KUBECTL, ['--kubeconfig', kubeconfig, 'get', '--raw', '/readyz?verbose'], { cwd: clone, encoding: 'utf8' });
      return r.status === 0 && r.stdout;
    }, 'kubectl to get a ready answer', 600, 200),
    exited,
  ]);
  expect(ready).toMatch(/readyz check passed/);
  expect(ready).toContain('[+]store ok');
  // The printed examples, as the README shows them.
  const kube = (...args: string[]) => spawnSync(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { cwd: clone, encoding: 'utf8' });
  await waitFor(() => kube('get', 'namespaces', 'default').status === 0 || undefined, 'the system namespaces', 600, 200);
  expect(kube('get', 'namespaces').stdout).toMatch(/^NAME\s+STATUS\s+AGE\ndefault\s+Active\s+/);
  expect(kube('create', 'configmap', 'hello', '--from-literal=greeting=hi').stdout).toBe('configmap/hello created\n');
  expect(kube('get', 'configmaps', 'hello', '-o', 'jsonpath={.data.greeting}').stdout).toBe('hi');
  // The banner is printed once the node is Ready; its `kubectl run` example runs a pod on it.
  expect(kube('get', 'nodes').stdout).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\nquick-start\s+Ready\s+/);
  const run = command[2].split(' ').slice(1);
  expect(kube(...run).stdout).toBe('pod/hello created\n');
  const phase = await Promise.race([
    waitFor(() => kube('get', 'pod', 'hello', '-o', 'jsonpath={.status.phase}').stdout === 'Running' || undefined, 'the example pod to run', 1500, 200),
    exited,
  ]);
  expect(phase).toBe(true);
  expect(kube('get', 'pod', 'hello', '-o', 'jsonpath={.spec.nodeName}').stdout).toBe('quick-start');
  // The API server reaches the node agent with the certificate the start made for it.
  expect(kube('exec', 'hello', '--', 'echo', 'from-the-pod')).toMatchObject({ status: 0, stdout: 'from-the-pod\n' });
});

/** Every process as `pid cmdline` with its cgroup lines, read from /proc. */
function processes(): Array<{ pid: string; cmdline: string; cgroup: string }> {
  const out: Array<{ pid: string; cmdline: string; cgroup: string }> = [];
  for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      out.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim(), cgroup: readFileSync(`/proc/${pid}/cgroup`, 'utf8') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

test('Ctrl-C stops the cluster and leaves no process or mount behind', async () => {
  // The example pod's processes (its pause and its `sleep 3600`) are in its pod cgroup (pod<uid>, or pod<uid with
  // underscores> under systemd); their command lines do not name the clone, so they are found by the cgroup.
  const uid = spawnSync(KUBECTL, ['--kubeconfig', kubeconfig, 'get', 'pod', 'hello', '-o', 'jsonpath={.metadata.uid}'], { encoding: 'utf8' }).stdout;
  expect(uid).not.toBe('');
  const ofTheCluster = (p: { cmdline: string; cgroup: string }) => p.cmdline.includes(clone) || p.cgroup.includes(`pod${uid}`) || p.cgroup.includes(`pod${uid.replace(/-/g, '_')}`);
  expect(processes().filter(ofTheCluster).map((p) => p.cmdline)).toContain('sleep 3600');
  const exit = new Promise<number | string | null>((r) => server!.once('exit', (code, signal) => r(code ?? signal)));
  // A terminal's Ctrl-C: SIGINT to the whole foreground process group (npm, the script and the launcher; the
  // launcher's parts are not in it, or containerd would die before it could stop the containers). npm waits for
  // the script, then ends as the signal asked (by the signal itself, or 0 after a clean stop).
  process.kill(-server!.pid!, 'SIGINT');
  expect([0, 'SIGINT']).toContain(await exit);
  // No part, shim, pause or workload left (reparented to init, the pod's would still be in its cgroup).
  expect(processes().filter(ofTheCluster).map((p) => `${p.pid} ${p.cmdline}`)).toEqual([]);
  expect(readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.includes(clone))).toEqual([]);
});

test('the README\'s npx commands work as written in the clone', () => {
  const file = join(dir, 'egress.yaml');
  writeFileSync(file, 'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection: {proxyProtocol: Direct}\n');
  // README: npx nx build config && npx cl-config validate auth.yaml egress.yaml
  expect(README).toContain('npx nx build config && npx cl-config validate');
  const build = spawnSync('npx', ['nx', 'build', 'config'], { cwd: clone, env, encoding: 'utf8' });
  expect(build.status).toBe(0);
  const r = spawnSync('npx', ['cl-config', 'validate', file], { cwd: clone, env, encoding: 'utf8' });
  expect([r.status, r.stdout]).toEqual([0, `${file}: valid EgressSelectorConfiguration\n`]);
});
