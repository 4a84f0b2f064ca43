// End to end, the built clet binary on a private containerd: an image credential provider plugin is asked
// about a matching image and its credentials reach the registry through the runtime's pull; a broken plugin
// configuration is refused at start together with the other start-up refusals; --clet-cgroups moves the
// agent into its cgroup.
//
// The "registry" (./auth-registry) is a loopback HTTP server that asks for Basic auth and records what it
// gets, then answers 404: enough to see the credentials arrive (a registry that serves images is out of scope), so the pull
// itself fails and the pod shows ErrImagePull / ImagePullBackOff.
import { waitFor as poll } from '@cl/testing';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CgroupFs } from '../src/cgroups';
import { startAuthRegistry, type AuthRegistry } from './auth-registry';
import { CletProcess, freePort, get, runClet, startClet } from './clet-harness';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(120_000);

let ctd: PrivateContainerd;
let pause: string;
let tmp: string;
let registry: AuthRegistry;
let registryPort: number;
/** The Authorization headers the registry saw, by request path. */
let seen: AuthRegistry['seen'];
let proc: CletProcess | undefined;

beforeAll(async () => {
  ctd = await startContainerd();
  pause = ensureTestImages(ctd.socket).pause;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-credprov-e2e-'));
  fs.mkdirSync(path.join(tmp, 'manifests'));
  fs.mkdirSync(path.join(tmp, 'bin'));
  registry = await startAuthRegistry();
  registryPort = registry.port;
  seen = registry.seen;
});

afterAll(async () => {
  await proc?.stop();
  await ctd?.stop();
  await registry?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const base = async () => [
  '--fail-cgroupv1=false', '--fail-swap-on=false', `--root-dir=${path.join(tmp, 'root')}`, `--cert-dir=${path.join(tmp, 'pki')}`,
  `--container-runtime-endpoint=${ctd.endpoint}`, '--hostname-override=node1', '--address=127.0.0.1',
  `--port=${await freePort()}`, '--healthz-port=0',
];

/** A plugin (a shell script) that logs each request with its args and env, then answers with credentials. */
function writePlugin(name: string): string {
  const log = path.join(tmp, `${name}.requests`);
  const response = {
    apiVersion: 'credentialprovider.kubelet.k8s.io/v1', kind: 'CredentialProviderResponse', cacheKeyType: 'Registry', cacheDuration: '1h',
    auth: { [`127.0.0.1:${registryPort}`]: { username: 'alice', password: 's3cret' } },
  };
  fs.writeFileSync(path.join(tmp, 'bin', name), [
    '#!/bin/sh', 'read -r req', `echo "$req $1 $TEAM" >> ${log}`, "cat <<'JSON'", JSON.stringify(response), 'JSON', '',
  ].join('\n'), { mode: 0o755 });
  return log;
}

function writeConfig(providers: string): string {
  const f = path.join(tmp, 'credential-providers.yaml');
  fs.writeFileSync(f, `apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n${providers}`);
  return f;
}

test('a pod whose image matches runs the plugin with a CredentialProviderRequest, and the pull carries its credentials', async () => {
  const requests = writePlugin('local-registry');
  const config = writeConfig([
    '- name: local-registry',
    `  matchImages: ["*.*.*.*:${registryPort}"]`,
    '  defaultCacheDuration: 10m',
    '  apiVersion: credentialprovider.kubelet.k8s.io/v1',
    '  args: ["--from-args"]',
    '  env: [{name: TEAM, value: blue}]',
    // a provider for other images is never run
    '- name: elsewhere',
    '  matchImages: ["*.example.com"]',
    '  defaultCacheDuration: 10m',
    '  apiVersion: credentialprovider.kubelet.k8s.io/v1',
    '',
  ].join('\n'));
  const elsewhere = writePlugin('elsewhere');
  const ro = await freePort();
  fs.writeFileSync(path.join(tmp, 'manifests', 'private.json'), JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'private' },
    spec: { hostNetwork: true, containers: [{ name: 'c', image: `127.0.0.1:${registryPort}/team/app:v1`, imagePullPolicy: 'Always' }] },
  }));
  proc = await startClet([...await base(), `--read-only-port=${ro}`, `--pod-manifest-path=${path.join(tmp, 'manifests')}`, '--file-check-frequency=1s', `--pod-infra-container-image=${pause}`,
    `--image-credential-provider-config=${config}`, `--image-credential-provider-bin-dir=${path.join(tmp, 'bin')}`]);
  expect(proc.child.exitCode).toBeNull();

  const request = await poll(() => fs.existsSync(requests) && fs.readFileSync(requests, 'utf8').trim().split('\n')[0], 'the plugin to be asked', 300, 200)
    .catch((e: Error) => {
      throw new Error(`${e.message}; clet stderr:\n${proc?.stderr().slice(-3000)}`);
    });
  expect(request).toBe(`{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderRequest","image":"127.0.0.1:${registryPort}/team/app"} --from-args blue`);
  const basic = `Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
  await poll(() => seen.some((s) => s.authorization === basic), `the registry to see the plugin's credentials (saw ${JSON.stringify(seen)})`, 300, 200);
  expect(seen.every((s) => s.authorization === undefined || s.authorization === basic)).toBe(true);

  const waiting = await poll(async () => {
    const pods = JSON.parse((await get(`http://127.0.0.1:${ro}/pods`)).body) as { items: Array<{ status: { containerStatuses?: Array<{ state: { waiting?: { reason: string } } }> } }> };
    const reason = pods.items[0]?.status.containerStatuses?.[0]?.state.waiting?.reason;
    return reason === 'ErrImagePull' || reason === 'ImagePullBackOff' ? reason : undefined;
  }, 'the pull to fail', 300, 200);
  expect(['ErrImagePull', 'ImagePullBackOff']).toContain(waiting);
  // The answer is cached for its hour: the retries do not run the plugin again; the other plugin never ran.
  await poll(() => seen.filter((s) => s.authorization === basic).length >= 2 || undefined, 'a retried pull', 300, 200);
  expect(fs.readFileSync(requests, 'utf8').trim().split('\n')).toHaveLength(1);
  expect(fs.existsSync(elsewhere)).toBe(false);
  await proc.stop();
  proc = undefined;
});

test('a broken plugin configuration is refused at start, with the other refusals, before anything serves', async () => {
  const config = writeConfig(['- name: missing', '  matchImages: ["registry.io"]', '  defaultCacheDuration: 1m', '  apiVersion: credentialprovider.kubelet.k8s.io/v1', ''].join('\n'));
  const r = await runClet([...await base(), `--image-credential-provider-config=${config}`, `--image-credential-provider-bin-dir=${path.join(tmp, 'bin')}`,
    '--runtime-cgroups=/runtime']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`failed to run Clet: [--runtime-cgroups=/runtime is not supported by this agent: it neither moves the container runtime nor reports that cgroup's usage; leave it empty, ` +
    `Failed to register CRI auth plugins: plugin binary executable ${path.join(tmp, 'bin', 'missing')} did not exist]`);
  expect(r.stderr).not.toContain('Started clet');

  const bare = await runClet([...await base(), `--image-credential-provider-bin-dir=${path.join(tmp, 'bin')}`]);
  expect(bare.code).toBe(1);
  expect(bare.stderr).toContain('failed to run Clet: Failed to register CRI auth plugins: credential provider config path is empty');
});

test('--system-cgroups is refused at start', async () => {
  const r = await runClet([...await base(), '--system-cgroups=/system', '--cgroup-root=/']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('failed to run Clet: --system-cgroups=/system is not supported by this agent: it does not move the host\'s processes into a system cgroup; leave it empty');
});

test('--clet-cgroups moves the agent into that cgroup, created where missing', async () => {
  const name = `/cl-test-clet-${process.pid}`;
  const cgroups = CgroupFs.host();
  try {
    proc = await startClet([...await base(), '--read-only-port=0', `--clet-cgroups=${name}`]);
    expect(proc.child.exitCode).toBeNull();
    const own = fs.readFileSync(`/proc/${proc.child.pid}/cgroup`, 'utf8');
    for (const line of own.trim().split('\n')) {
      const [, controllers, where] = line.split(':');
      if (cgroups.v1 ? ['cpu', 'cpuacct', 'cpu,cpuacct', 'memory', 'pids'].includes(controllers) : controllers === '') expect([controllers, where]).toEqual([controllers, name]);
    }
    await proc.stop();
    proc = undefined;
  } finally {
    await proc?.stop();
    proc = undefined;
    cgroups.remove(name);
  }
});
