// End to end: the API server reaching the node agent, as kubectl 1.33 uses it: `logs` (follow, previous, tail,
// timestamps), `exec`, `attach` (kubectl's WebSocket v5.channel.k8s.io translated to SPDY toward the agent),
// `port-forward` (its WebSocket tunnel of SPDY), kubectl's SPDY fallback, the node proxy and pods/proxy, on a one-node cluster from the built binaries (the API server, a private
// containerd, the node agent joined with --clconfig). One cluster is shared by the cases.
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import * as https from 'node:https';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KUBECTL, startSquid, waitFor as poll, type Squid } from '@cl/testing';
import { CletProcess, freePort, removePodLogs, startJoinedAgent } from './clet-harness';
// Test helpers of other suites and tools/ fixtures: specs are never built, so relative imports are safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { httpsGet, kubectlHelpers, startApiserverProcess, writeKubeconfig, type ApiserverProcess } from '../../apiserver/test/harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';
import { wsRequest, type WsResult } from './debug-ws';

jest.setTimeout(300_000);

const NODE = 'streams-node';
const PODS = ['ticker', 'crasher', 'pair', 'reader', 'web', 'nowhere', 'debugged'];
let api: ApiserverProcess;
let ctd: PrivateContainerd;
let images: { busybox: string };
let tmp: string;
let clet: CletProcess | undefined;
let followers: ChildProcess[] = [];
let squid: Squid | undefined;
const { k, ok, file } = kubectlHelpers(() => api);

function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  return poll(async () => fn(), what, 1500, 200).catch((e: Error) => {
    throw new Error(`${e.message}\nclet:\n${clet?.stderr().slice(-3000)}\napiserver:\n${api.output().slice(-3000)}`);
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON, read field by field
const maybe = (...args: string[]): any => {
  const r = k(...args, '-o', 'json');
  return r.status === 0 ? JSON.parse(r.stdout) : undefined;
};

const kubectlArgs = (...args: string[]) => ['--kubeconfig', api.kubeconfig, ...args];
const kubectlEnv = (extra: Record<string, string> = {}) => ({ ...process.env, HOME: os.tmpdir(), ...extra });

/** How many times the API server logged `line` so far (it logs each WebSocket stream it translates). */
const logged = (line: string) => api.output().split(line).length - 1;
const TRANSLATED_EXEC = 'Translating pods/exec default/ticker: WebSocket v5.channel.k8s.io to SPDY/3.1 v4.channel.k8s.io';
const TUNNELLED_FORWARD = 'Tunnelling pods/portforward default/web: WebSocket SPDY/3.1+portforward.k8s.io to SPDY/3.1 portforward.k8s.io';

/** Runs kubectl to its end without blocking the event loop; `input` is its whole stdin. */
function run(args: string[], input: string | Buffer, env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(KUBECTL, kubectlArgs(...args), { env: kubectlEnv(env) });
    followers.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin!.end(input);
  });
}

/** A long-running kubectl (follow, attach, port-forward) whose output the test watches; killed at the end. */
function background(...args: string[]): { child: ChildProcess; out: () => string } {
  return backgroundWith({}, ...args);
}

function backgroundWith(env: Record<string, string>, ...args: string[]): { child: ChildProcess; out: () => string } {
  const child = spawn(KUBECTL, kubectlArgs(...args), { env: kubectlEnv(env) });
  followers.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, out: () => out };
}

const podFile = (name: string, containers: Array<{ name: string; command: string[] }>, extra: Record<string, unknown> = {}) =>
  file(`${name}.json`, JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: { terminationGracePeriodSeconds: 1, ...extra, containers: containers.map((c) => ({ ...c, image: images.busybox })) },
  }));

// The API server dials the agent through the egress selector's `cluster` selection: directly by default, or
// through an HTTP CONNECT proxy (squid) named in an EgressSelectorConfiguration; and the agent either lets
// anonymous callers in or wants the API server's --kubelet-client-certificate, while the API server verifies the
// agent's serving certificate with --kubelet-certificate-authority. Each set-up runs its own cluster.
const SETUPS: Array<[string, { viaSquid: boolean; x509: boolean; viaKonnectivity?: boolean }]> = [
  ['direct, anonymous agent', { viaSquid: false, x509: false }],
  ['through squid (HTTP CONNECT), anonymous agent', { viaSquid: true, x509: false }],
  ['direct, client certificates both ways', { viaSquid: false, x509: true }],
  // The project's konnectivity fake (proxy-server + agent in one process) on a unix socket: gRPC `Proxy` streams.
  ['through konnectivity (gRPC over UDS), anonymous agent', { viaSquid: false, x509: false, viaKonnectivity: true }],
];

/**
 * libs/egress's konnectivity test fake as a child process (kubectl runs synchronously here, which would stall a
 * tunnel relayed by this process). Its stdout lists every address it was asked to dial.
 */
async function startKonnectivity(socket: string): Promise<{ child: ChildProcess; dials: () => string[] }> {
  const main = path.join(__dirname, '../../../libs/egress/test/support/konnectivity-server-main.ts');
  const child = spawn(process.execPath, ['-r', '@swc-node/register', main, socket], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await poll(() => {
    if (child.exitCode !== null) throw new Error(`the konnectivity fake exited with ${child.exitCode}`);
    return out.includes('listening ') || undefined;
  }, 'the konnectivity fake to listen', 300, 100);
  return { child, dials: () => [...out.matchAll(/^dial (\S+)$/gm)].map((m) => m[1]) };
}
let konnectivity: Awaited<ReturnType<typeof startKonnectivity>> | undefined;

/** A CA, the API server's client pair and the agent's serving pair for 127.0.0.1, as files in `dir`. */
async function agentCertificates(dir: string) {
  // The agent loads @cl/pki lazily; so does this suite.
  const { createCA, issueClientCert, issueServingCert } = await import('@cl/pki');
  const ca = await createCA('cl-streams-ca');
  const client = await issueClientCert(ca, { cn: 'kube-apiserver-kubelet-client' });
  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1'] });
  const write = (name: string, text: string) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  return {
    ca: write('ca.crt', ca.certPem),
    clientCert: write('apiserver-kubelet-client.crt', client.certPem),
    clientKey: write('apiserver-kubelet-client.key', client.keyPem),
    servingCert: write('clet.crt', serving.certPem),
    servingKey: write('clet.key', serving.keyPem),
  };
}

describe.each(SETUPS)('%s', (_setup, { viaSquid, x509, viaKonnectivity = false }) => {
  let cletPort = 0;
  /** The host-network web pod's port (the port-forward case starts it; pods/proxy reuses it). */
  let webPort = 0;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-streams-'));
    followers = [];
    ctd = await startContainerd();
    images = ensureTestImages(ctd.socket);
    const egress: string[] = [];
    if (viaSquid) {
      squid = await startSquid();
      const file = path.join(tmp, 'egress.yaml');
      fs.writeFileSync(file, [
        'apiVersion: apiserver.k8s.io/v1beta1',
        'kind: EgressSelectorConfiguration',
        'egressSelections:',
        '- name: cluster',
        '  connection:',
        '    proxyProtocol: HTTPConnect',
        '    transport:',
        '      tcp:',
        `        url: http://127.0.0.1:${squid.port}`,
        '',
      ].join('\n'));
      egress.push(`--egress-selector-config-file=${file}`);
    } else if (viaKonnectivity) {
      const socket = path.join(tmp, 'konnectivity.sock');
      konnectivity = await startKonnectivity(socket);
      const file = path.join(tmp, 'egress.yaml');
      fs.writeFileSync(file, [
        'apiVersion: apiserver.k8s.io/v1beta1',
        'kind: EgressSelectorConfiguration',
        'egressSelections:',
        '- name: cluster',
        '  connection:',
        '    proxyProtocol: GRPC',
        '    transport:',
        '      uds:',
        `        udsName: ${socket}`,
        '',
      ].join('\n'));
      egress.push(`--egress-selector-config-file=${file}`);
    }
    const certs = x509 ? await agentCertificates(tmp) : undefined;
    const kubeletClient = certs ? [`--kubelet-client-certificate=${certs.clientCert}`, `--kubelet-client-key=${certs.clientKey}`, `--kubelet-certificate-authority=${certs.ca}`] : [];
    // The node's Hostname address (its name) does not resolve here: the API server dials its InternalIP.
    api = await startApiserverProcess(['--kubelet-preferred-address-types=InternalIP,Hostname', ...egress, ...kubeletClient]);
    writeKubeconfig(api);
    const agent = await startJoinedAgent({
      dir: tmp, kubeconfig: api.kubeconfig, containerRuntimeEndpoint: ctd.endpoint, nodeName: NODE,
      configLines: certs ? [`authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: ${certs.ca}}}`, `tlsCertFile: ${certs.servingCert}`, `tlsPrivateKeyFile: ${certs.servingKey}`] : [],
    });
    clet = agent;
    cletPort = agent.port;
    await waitFor('the node to be Ready', () => maybe('get', 'node', NODE)?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status === 'True');
    ok('create', '-f', podFile('ticker', [{ name: 'ticker', command: ['sh', '-c', 'trap "exit 0" TERM; i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 0.3; done'] }]));
    await waitFor('ticker to run', () => maybe('get', 'pod', 'ticker')?.status?.phase === 'Running');
  });

  afterAll(async () => {
    for (const f of followers) f.kill();
    await clet?.stop();
    await api?.cleanup();
    await ctd?.stop();
    await squid?.stop();
    squid = undefined;
    konnectivity?.child.kill('SIGTERM');
    if (konnectivity && konnectivity.child.exitCode === null) await new Promise((r) => konnectivity!.child.once('exit', r));
    konnectivity = undefined;
    for (const name of PODS) removePodLogs('default', name);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('kubectl logs relays the container log; --tail and --timestamps shape it', async () => {
    await waitFor('five ticks', () => ok('logs', 'ticker').includes('tick 4\n'));
    expect(ok('logs', 'ticker')).toMatch(/^tick 0\ntick 1\ntick 2\ntick 3\ntick 4\n/);
    expect(ok('logs', 'ticker', '--tail=2')).toMatch(/^tick \d+\ntick \d+\n$/);
    expect(ok('logs', 'ticker', '--tail=1', '--timestamps')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z tick \d+\n$/);
    expect(ok('logs', 'ticker', '--limit-bytes=7')).toBe('tick 0\n');
  });

  test('kubectl logs -f keeps streaming new lines until the caller leaves', async () => {
    const follower = spawn(KUBECTL, ['--kubeconfig', api.kubeconfig, 'logs', '-f', '--tail=1', 'ticker'], { env: { ...process.env, HOME: os.tmpdir() } });
    followers.push(follower);
    let out = '';
    follower.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const first = await waitFor('the first followed line', () => /tick (\d+)\n/.exec(out)?.[1]);
    // Lines the container writes after the request started arrive on the same response.
    await waitFor('three newer lines', () => [1, 2, 3].every((d) => out.includes(`tick ${Number(first) + d}\n`)));
    follower.kill();
    await new Promise((r) => follower.once('exit', r));
  });

  test('kubectl logs --previous shows the run before a restart', async () => {
    ok('create', '-f', podFile('crasher', [{ name: 'crasher', command: ['sh', '-c', 'echo "run $RANDOM$RANDOM"; sleep 1; exit 3'] }]));
    await waitFor('a restart', () => (maybe('get', 'pod', 'crasher')?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1);
    const previous = ok('logs', 'crasher', '--previous');
    expect(previous).toMatch(/^run \d+\n$/);
    const current = k('logs', 'crasher');
    // The current run (or, while it waits out its back-off, nothing newer) is another one.
    if (current.status === 0 && current.stdout) expect(current.stdout).not.toBe(previous);
  });

  test('a pod of several containers needs a container name; an unknown one is refused', async () => {
    ok('create', '-f', podFile('pair', [{ name: 'a', command: ['sh', '-c', 'echo from-a; sleep 3600'] }, { name: 'b', command: ['sh', '-c', 'echo from-b; sleep 3600'] }]));
    const raw = k('get', '--raw', '/api/v1/namespaces/default/pods/pair/log');
    expect(raw.status).not.toBe(0);
    expect(raw.stderr).toContain('Error from server (BadRequest): a container name must be specified for pod pair, choose one of: [a b]');
    expect(k('logs', 'pair', '-c', 'zz').stderr).toContain('container zz is not valid for pod pair');
    await waitFor('pair to run', () => maybe('get', 'pod', 'pair')?.status?.phase === 'Running');
    await waitFor('b to have written', () => ok('logs', 'pair', '-c', 'b') === 'from-b\n');
    expect(k('logs', 'pod/nobody').stderr).toContain('pods "nobody" not found');
    expect(k('get', '--raw', '/api/v1/namespaces/default/pods/ticker/log?tailLines=-1').stderr).toContain('tailLines: Invalid value: -1: must be greater than or equal to 0');
  });

  test('kubectl get --raw reaches the node agent through the node proxy', () => {
    expect(ok('get', '--raw', `/api/v1/nodes/${NODE}/proxy/healthz`)).toBe('ok');
    const pods = JSON.parse(ok('get', '--raw', `/api/v1/nodes/${NODE}/proxy/pods`));
    expect(pods.kind).toBe('PodList');
    expect(pods.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(expect.arrayContaining(['ticker']));
    expect(k('get', '--raw', '/api/v1/nodes/nowhere/proxy/healthz').stderr).toContain('nodes "nowhere" not found');
  });

  test('pods/log, exec, attach, portforward, proxy and nodes/proxy are listed in discovery', () => {
    const core = JSON.parse(ok('get', '--raw', '/api/v1'));
    const byName = new Map(core.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get('pods/log')).toMatchObject({ kind: 'Pod', verbs: ['get'] });
    expect(byName.get('pods/exec')).toMatchObject({ kind: 'PodExecOptions', verbs: ['create', 'get'] });
    expect(byName.get('pods/attach')).toMatchObject({ kind: 'PodAttachOptions', verbs: ['create', 'get'] });
    expect(byName.get('pods/portforward')).toMatchObject({ kind: 'PodPortForwardOptions', verbs: ['create', 'get'] });
    expect(byName.get('nodes/proxy')).toMatchObject({ kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
    expect(byName.get('pods/proxy')).toMatchObject({ kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
  });

  test('kubectl exec runs a command with stdin and returns its exit code', async () => {
    const before = logged(TRANSLATED_EXEC);
    // Asynchronously, so that a stream that never ends fails this case at jest's timeout instead of blocking the run.
    // `cat` ends only because the end of kubectl's stdin reaches it: v5's close message, half-closing the SPDY stdin.
    const r = await run(['exec', '-i', 'ticker', '--', 'sh', '-c', 'cat; echo done >&2; exit 3'], 'hello through stdin\n');
    expect(r.stdout).toBe('hello through stdin\n');
    expect(r.stderr).toContain('done\n');
    expect(r.stderr).toContain('command terminated with exit code 3');
    expect(r.status).toBe(3);
    expect(ok('exec', 'ticker', '--', 'echo', 'no stdin')).toBe('no stdin\n');
    expect(k('exec', 'pair', '--', 'true').stderr).toContain('Defaulted container "a" out of: a, b');
    expect(k('exec', 'pair', '-c', 'zz', '--', 'true').stderr).toContain('container zz is not valid for pod pair');
    // kubectl used its WebSocket (no fallback to SPDY): the API server translated both ticker sessions (its log
    // reaches this process a little after kubectl's end).
    await waitFor('both exec sessions to be logged as translated', () => logged(TRANSLATED_EXEC) - before === 2);
  });

  test('kubectl exec -i carries a large stdin and output through the translation', async () => {
    // More than a SPDY window (64 KiB) each way: windows granted back, backpressure instead of loss.
    const input = Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`).join('');
    const r = await run(['exec', '-i', 'ticker', '--', 'cat'], input);
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBe(input.length);
    expect(r.stdout).toBe(input);
  });

  test('with WebSockets turned off kubectl falls back to SPDY, relayed as before', async () => {
    const before = logged(TRANSLATED_EXEC);
    const r = await run(['exec', '-i', 'ticker', '--', 'sh', '-c', 'cat; exit 4'], 'over spdy\n', { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' });
    expect(r.stdout).toBe('over spdy\n');
    expect(r.status).toBe(4);
    expect(logged(TRANSLATED_EXEC)).toBe(before);
  });

  test('kubectl attach joins a running container\'s stdin and stdout', async () => {
    ok('create', '-f', podFile('reader', [{ name: 'reader', command: ['sh', '-c', 'while read l; do echo "got $l"; done'] }].map((c) => ({ ...c, stdin: true }))));
    await waitFor('reader to run', () => maybe('get', 'pod', 'reader')?.status?.phase === 'Running');
    const attach = background('attach', '-i', 'reader');
    // Attach has no "connected" signal: lines are written until one comes back.
    await waitFor('an answer', () => {
      attach.child.stdin!.write('ping\n');
      return attach.out().includes('got ping\n');
    });
    attach.child.kill();
    expect(logged('Translating pods/attach default/reader: WebSocket v5.channel.k8s.io to SPDY/3.1 v4.channel.k8s.io')).toBeGreaterThan(0);
  });

  test('kubectl debug: the agent runs an ephemeral container once; --target shares the target\'s processes; -i attaches', async () => {
    // A pod of its own: ephemeral containers change what kubectl says about the pod's containers elsewhere.
    ok('create', '-f', podFile('debugged', [{ name: 'app', command: ['sh', '-c', 'trap "exit 0" TERM; echo target-marker >/dev/null; while true; do sleep 1; done'] }]));
    await waitFor('debugged to run', () => maybe('get', 'pod', 'debugged')?.status?.phase === 'Running');
    const image = [`--image=${images.busybox}`, '--image-pull-policy=IfNotPresent'];
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON
    const status = (name: string): any => maybe('get', 'pod', 'debugged')?.status?.ephemeralContainerStatuses?.find((s: { name: string }) => s.name === name);
    // Without -i kubectl adds the container and returns; what it printed is read back with kubectl logs -c.
    ok('debug', 'debugged', ...image, '-c', 'peek', '--target=app', '--', 'ps');
    await waitFor('peek to finish', () => status('peek')?.state?.terminated);
    expect(ok('logs', 'debugged', '-c', 'peek')).toContain('echo target-marker');
    ok('debug', 'debugged', ...image, '-c', 'alone', '--', 'ps');
    await waitFor('alone to finish', () => status('alone')?.state?.terminated);
    expect(ok('logs', 'debugged', '-c', 'alone')).not.toContain('target-marker');
    // -i: kubectl waits for the container to run and attaches to its stdin and stdout. Its stdin stays open until the
    // answer is back: containerd detaches an attach's output when the attach's stdin ends (unless the container is
    // stdinOnce), so an input that ended at once could lose the answer to a race.
    const talk = background('debug', 'debugged', '-i', ...image, '-c', 'talk', '--', 'sh', '-c', 'read l; echo "got $l"');
    const exited = new Promise<number | null>((r) => talk.child.once('close', r));
    talk.child.stdin!.write('hello\n');
    await waitFor('the answer on the attached stdout', () => talk.out().includes('got hello\n'));
    talk.child.stdin!.end();
    expect(await exited).toBe(0);
    // Finished ephemeral containers are never started again, and the pod runs on.
    const pod = maybe('get', 'pod', 'debugged');
    expect(pod.status.ephemeralContainerStatuses.find((s: { name: string }) => s.name === 'peek')).toMatchObject({ ready: false, restartCount: 0, state: { terminated: { exitCode: 0 } } });
    expect(pod.status.phase).toBe('Running');
    ok('delete', 'pod', 'debugged', '--wait=false');
  });

  test('kubectl port-forward carries a connection to a host-network pod\'s port both ways', async () => {
    const podPort = await freePort();
    webPort = podPort;
    const localPort = await freePort();
    ok('create', '-f', podFile('web', [{ name: 'web', command: ['sh', '-c', `mkdir -p /tmp/www/sub && echo hello-from-pod > /tmp/www/index.html && echo '<a href="/index.html">home</a> <img src=/sub/logo.png> <a href="http://example.com/">out</a>' > /tmp/www/links.html && exec httpd -f -p 127.0.0.1:${podPort} -h /tmp/www`] }], { hostNetwork: true }));
    await waitFor('web to run', () => maybe('get', 'pod', 'web')?.status?.phase === 'Running');
    const forward = background('port-forward', '--address=127.0.0.1', 'pod/web', `${localPort}:${podPort}`);
    await waitFor('the forward to listen', () => forward.out().includes(`Forwarding from 127.0.0.1:${localPort} -> ${podPort}`));
    const get = () =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: localPort, path: '/index.html', agent: false }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        }).on('error', reject);
      });
    expect(await get()).toEqual({ status: 200, body: 'hello-from-pod\n' });
    // A second connection on the same forward.
    expect(await get()).toEqual({ status: 200, body: 'hello-from-pod\n' });
    forward.child.kill();
    // kubectl's WebSocket tunnel was taken (no fallback to SPDY).
    expect(logged(TUNNELLED_FORWARD)).toBe(1);

    // The same through kubectl's SPDY fallback: relayed byte for byte, not tunnelled.
    const spdyPort = await freePort();
    const spdy = backgroundWith({ KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }, 'port-forward', '--address=127.0.0.1', 'pod/web', `${spdyPort}:${podPort}`);
    await waitFor('the SPDY forward to listen', () => spdy.out().includes(`Forwarding from 127.0.0.1:${spdyPort} -> ${podPort}`));
    const viaSpdy = await new Promise<string>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: spdyPort, path: '/index.html', agent: false }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });
    expect(viaSpdy).toBe('hello-from-pod\n');
    spdy.child.kill();
    expect(logged(TUNNELLED_FORWARD)).toBe(1);
  });

  test('pods/proxy reaches a host-network pod\'s HTTP server; a pod without an address is refused', () => {
    expect(webPort).toBeGreaterThan(0);
    expect(ok('get', '--raw', `/api/v1/namespaces/default/pods/web:${webPort}/proxy/index.html`)).toBe('hello-from-pod\n');
    expect(ok('get', '--raw', `/api/v1/namespaces/default/pods/http:web:${webPort}/proxy/index.html`)).toBe('hello-from-pod\n');
    // Bound to a node that does not exist: never started, no IP.
    ok('create', '-f', podFile('nowhere', [{ name: 'c', command: ['true'] }], { nodeName: 'no-such-node' }));
    expect(k('get', '--raw', `/api/v1/namespaces/default/pods/nowhere:${webPort}/proxy/`).stderr).toContain('Error from server (BadRequest): address not allowed');
    expect(k('get', '--raw', '/api/v1/namespaces/default/pods/a:b:c:d/proxy/').stderr).toMatch(/Error from server \(BadRequest\): invalid pod request \\?"a:b:c:d\\?"/);
    expect(k('get', '--raw', `/api/v1/namespaces/default/pods/ghost:${webPort}/proxy/`).stderr).toContain('pods "ghost" not found');
  });

  test('pods/proxy and nodes/proxy redirect `.../proxy` to `.../proxy/` and send links back through the proxy', async () => {
    expect(webPort).toBeGreaterThan(0);
    const prefix = `/api/v1/namespaces/default/pods/web:${webPort}/proxy`;
    const get = (p: string, method = 'GET') => httpsGet(api, p, { method });
    // kubectl get --raw does not show a redirect: asked over HTTPS directly.
    expect(await get(`${prefix}?a=1`)).toMatchObject({ status: 301, headers: { location: `${prefix}/?a=1` } });
    expect(await get(prefix, 'HEAD')).toMatchObject({ status: 301, headers: { location: `${prefix}/` } });
    expect(await get(`/api/v1/nodes/${NODE}/proxy`)).toMatchObject({ status: 301, headers: { location: `/api/v1/nodes/${NODE}/proxy/` } });
    // The trailing slash reaches the pod's server (busybox httpd serves index.html there).
    expect(await get(`${prefix}/`)).toMatchObject({ status: 200, body: 'hello-from-pod\n' });
    // text/html: absolute paths on the pod's own host go under the prefix, other hosts stay.
    expect((await get(`${prefix}/links.html`)).body).toBe(`<a href="${prefix}/index.html">home</a> <img src="${prefix}/sub/logo.png"> <a href="http://example.com/">out</a>\n`);
    // The pod's own redirect of a directory (busybox: 302 Location /sub/) comes back through the proxy.
    expect(await get(`${prefix}/sub`)).toMatchObject({ status: 302, headers: { location: `${prefix}/sub/` } });
  });

  test('a TTY exec session sees the size kubectl\'s terminal has, over WebSocket and SPDY, and later resizes', async () => {
    // kubectl -t in a pseudo-terminal of 41 rows by 97 columns (util-linux `script`) sends that size at start. The
    // size races the command's start (as upstream's does): while the terminal has no size yet busybox stty prints
    // only an error (and exits 0), so the command asks again, for up to 5 s, until it printed a size; that goes to a
    // file, read back after kubectl's end.
    for (const websockets of ['true', 'false']) {
      const file = `/tmp/size-ws-${websockets}`;
      const sttySize = `for i in $(seq 50); do busybox stty size >${file} 2>/dev/null; test -s ${file} && exit; sleep 0.1; done; exit 1`;
      const script = await new Promise<string>((resolve) => {
        const cmd = `stty rows 41 cols 97; KUBECTL_REMOTE_COMMAND_WEBSOCKETS=${websockets} '${KUBECTL}' --kubeconfig '${api.kubeconfig}' exec -it ticker -- sh -c '${sttySize}'`;
        const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: kubectlEnv() });
        followers.push(child);
        let out = '';
        child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        // script's stdin stays open: its end would reach the container's terminal as the end of input.
        child.on('close', (code) => resolve(`${out}[exit ${code}]`));
      });
      expect(script).toBe('[exit 0]');
      expect(ok('exec', 'ticker', '--', 'cat', file)).toBe('41 97\n');
    }
    // A resize during the session: a WebSocket client of our own sends channel 4 messages as kubectl does on SIGWINCH.
    let send: ((channel: number, data: Buffer | string) => void) | undefined;
    let live: WsResult | undefined;
    const session = wsRequest(`${api.url}/api/v1/namespaces/default/pods/ticker/exec?command=sh&stdin=true&stdout=true&tty=true`, {
      protocol: 'v5.channel.k8s.io',
      onOpen: (s, r) => {
        send = s;
        live = r;
      },
    });
    await waitFor('the exec WebSocket to open', () => send);
    for (const [cols, rows] of [[113, 37], [71, 19]]) {
      send!(4, JSON.stringify({ Width: cols, Height: rows }));
      // `stty size` prints "rows cols" (the image links no stty applet); asked again until the resize has reached the terminal.
      await waitFor(`stty to see ${rows} ${cols}`, () => {
        send!(0, 'busybox stty size\n');
        return live!.channels[1]?.toString().includes(`\n${rows} ${cols}\r`);
      });
    }
    send!(0, 'exit 0\n');
    const r = await session;
    expect(r.status).toBe(101);
    expect(r.channels[3]?.toString()).toContain('"status":"Success"');
  });

  test('the agent was dialled through the cluster egress selection', () => {
    const metrics = ok('get', '--raw', '/metrics');
    const tunnelled = /apiserver_egress_dialer_dial_duration_seconds_count\{[^}]*protocol="http_connect"[^}]*\} [1-9]/.test(metrics);
    expect(tunnelled).toBe(viaSquid);
    const viaGrpc = /apiserver_egress_dialer_dial_duration_seconds_count\{[^}]*protocol="grpc"[^}]*\} [1-9]/.test(metrics);
    expect(viaGrpc).toBe(viaKonnectivity);
    // The fake dialled the agent's port for the API server.
    if (viaKonnectivity) expect(konnectivity!.dials()).toContain(`127.0.0.1:${cletPort}`);
  });

  test('the agent lets in only the callers its set-up allows', async () => {
    // Without the API server's certificate the agent refuses (the cases above got in with it), or admits anyone.
    const status = await new Promise<number>((resolve, reject) =>
      https.get({ host: '127.0.0.1', port: cletPort, path: '/healthz', rejectUnauthorized: false, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject),
    );
    expect(status).toBe(x509 ? 401 : 200);
  });
});
