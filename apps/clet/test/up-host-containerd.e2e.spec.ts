// The README's main job (tools/cluster/up.js) on a machine whose own containerd runs: the node uses it (the images
// imported into it), and Ctrl-C removes only what the cluster ran there, leaving the host's containerd and its own
// containers running. A harness containerd stands in for the host's (the one at /run/containerd is not running on
// this machine, and a test must not use it anyway); up.js is pointed at it with --host-containerd-socket.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort, KUBECTL, waitFor } from '@cl/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, startContainerd, type PrivateContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(300_000);

const UP = path.join(__dirname, '..', '..', '..', 'tools', 'cluster', 'up.js');
const NODE = 'host-ctd-node';
let host: PrivateContainerd;
let tmp: string;
let images: { busybox: string };
// runc keeps container state under one root for every containerd on the machine: the id must be unique to this run.
const HOST_OWN = `host-own-${process.pid}`;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-up-host-'));
  host = await startContainerd();
  images = ensureTestImages(host.socket);
  // Something of the host's own: a container run outside the CRI, which the cluster must leave alone.
  host.ctr(['run', '-d', images.busybox, HOST_OWN, 'sleep', '3600']);
});

afterAll(async () => {
  for (const args of [['tasks', 'kill', '-s', 'SIGKILL', HOST_OWN], ['tasks', 'delete', '-f', HOST_OWN], ['containers', 'delete', HOST_OWN]]) {
    try {
      host?.ctr(args);
    } catch {
      // Not there (the set-up failed before it), or already gone.
    }
  }
  await host?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Up {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function startUp(args: string[]): Promise<Up> {
  const child = spawn(process.execPath, [UP, `--state-dir=${path.join(tmp, 'state')}`, `--secure-port=${await freePort()}`, '--bind-address=127.0.0.1', `--node-port=${await freePort()}`, `--node-name=${NODE}`, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

/** The containerd containers (sandboxes and containers alike) labelled with a pod's uid, as the agent labels them. */
const containersOfPod = (uid: string) => host.ctr(['containers', 'ls', '-q', `labels."io.kubernetes.pod.uid"==${uid}`]).split('\n').filter(Boolean);

test('--containerd=host with no usable containerd says why and exits 1', async () => {
  const up = await startUp(['--containerd=host', `--host-containerd-socket=${path.join(tmp, 'nothing.sock')}`]);
  expect(await up.exited).toBe(1);
  expect(up.output()).toContain(`--containerd=host: no containerd socket at ${path.join(tmp, 'nothing.sock')}`);
});

test('a ready host containerd runs the node\'s pods; Ctrl-C removes them and nothing else', async () => {
  const up = await startUp([`--host-containerd-socket=${host.socket}`]);
  const kubeconfig = path.join(tmp, 'state', 'admin.kubeconfig');
  await Promise.race([
    waitFor(() => /kubectl run /.test(up.output()) || undefined, 'the cluster to be up', 1500, 200),
    up.exited.then((code) => {
      throw new Error(`up.js exited ${code}:\n${up.output()}`);
    }),
  ]);
  expect(up.output()).toContain(`Using the host's containerd at ${host.socket}.`);
  const kube = (...args: string[]) => spawnSync(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
  expect(kube('run', 'on-host', `--image=${images.busybox}`, '--restart=Never', '--', 'sleep', '3600').stdout).toBe('pod/on-host created\n');
  await waitFor(() => kube('get', 'pod', 'on-host', '-o', 'jsonpath={.status.phase}').stdout === 'Running' || undefined, 'the pod to run', 1500, 200);
  const uid = kube('get', 'pod', 'on-host', '-o', 'jsonpath={.metadata.uid}').stdout;
  // Its sandbox and container live in the host's containerd.
  expect(containersOfPod(uid)).toHaveLength(2);

  up.child.kill('SIGINT');
  expect(await up.exited).toBe(0);
  expect(containersOfPod(uid)).toEqual([]);
  // The host's containerd still serves, and its own container still runs.
  expect(host.ctr(['tasks', 'ls'])).toMatch(new RegExp(`${HOST_OWN}\\s+\\d+\\s+RUNNING`));
});
