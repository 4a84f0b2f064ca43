#!/usr/bin/env node
'use strict';
// The README's main job with a node: the API server (with its scheduler and controllers), a containerd for the
// node and the node agent registered as this machine, all on embedded defaults under one state directory
// (default ./.cl), as k3s brings up a one-node cluster with one command. Ctrl-C stops everything it started,
// pods included, and leaves no process or mount behind; the next start reuses the state (same node, same
// objects, images already imported).
//
//   node tools/cluster/up.js [--state-dir=DIR] [--no-node] [--node-name=NAME] [--node-port=PORT]
//                            [--containerd=auto|host|private] [--host-containerd-socket=PATH]
//                            [--clet-arg=--flag=value ...] [API server flags ...]
//
// The node's containerd (--containerd, default auto): the host's (--host-containerd-socket, default
// /run/containerd/containerd.sock) when it runs and its CRI says the runtime and the network are ready
// (host-containerd.js: the images are imported into it, and Ctrl-C removes only the sandboxes of this node's pods);
// otherwise a private one (tools/containerd/harness.js, state under DIR/containerd), stopped with all its
// containers on Ctrl-C. `host` fails when the host's cannot be used; --clet-arg=--container-runtime-endpoint=...
// names another runtime and leaves it alone. Needs the apps built (tools/start.sh builds them).
//
// The parts run in sessions of their own: a terminal's Ctrl-C goes to its foreground process group, and only this
// script is to stop them, in order (a containerd that got the SIGINT too would die before it could kill its
// containers). A guard (a shell blocked reading a pipe from this script) does the same stop from the record in
// DIR/running.json (parts.js) if this script dies without doing it (SIGKILL, a crash): the pipe closes with it.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { readKubeconfig, request } = require('./admin-client.js');
const { DEFAULT_SOCKET, prepareHostContainerd, probeHostContainerd, removePodSandboxes } = require('./host-containerd.js');
const { partsRecord, stopLeftovers } = require('./parts.js');

const ROOT = path.join(__dirname, '..', '..');
const APISERVER_UP = path.join(ROOT, 'apps/apiserver/dist/up.js');
const CLET_MAIN = path.join(ROOT, 'apps/clet/dist/main.js');
const PARTS = path.join(__dirname, 'parts.js');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Splits this script's own options from the API server's flags (which pass through untouched). */
function parseArgs(argv) {
  const opts = {
    stateDir: path.resolve('.cl'),
    node: true,
    nodeName: os.hostname().toLowerCase(),
    nodePort: '10250',
    containerd: 'auto',
    hostContainerdSocket: DEFAULT_SOCKET,
    cletArgs: [],
    apiserverArgs: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [name, inline] = a.startsWith('--') ? [a.slice(2).split('=')[0], a.includes('=') ? a.slice(a.indexOf('=') + 1) : undefined] : [undefined, undefined];
    const value = () => (inline !== undefined ? inline : argv[++i]);
    if (name === 'state-dir') opts.stateDir = path.resolve(value());
    else if (name === 'no-node') opts.node = false;
    else if (name === 'node-name') opts.nodeName = value();
    else if (name === 'node-port') opts.nodePort = value();
    else if (name === 'clet-arg') opts.cletArgs.push(value());
    else if (name === 'containerd') opts.containerd = value();
    else if (name === 'host-containerd-socket') opts.hostContainerdSocket = value();
    else opts.apiserverArgs.push(a);
  }
  if (!['auto', 'host', 'private'].includes(opts.containerd)) throw new Error(`--containerd must be auto, host or private, not ${JSON.stringify(opts.containerd)}`);
  return opts;
}

// V8's young generation at 4 MB semi-spaces instead of Node 20's 16 MB: an idle control plane and agent allocate
// little, and the smaller nursery keeps ~20 MB (API server) and ~12 MB (agent) of RSS that a dev cluster on a
// laptop does not need (bench/cluster-start measures both). NODE_OPTIONS naming it wins.
const NODE_FLAGS = /max-semi-space-size/.test(process.env.NODE_OPTIONS ?? '') ? [] : ['--max-semi-space-size=4'];

/** A node child in a session of its own whose output goes to a log file; `exited` resolves with its exit code. */
function startLogged(args, logFile, env = process.env) {
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...NODE_FLAGS, ...args], { stdio: ['ignore', fd, fd], env, detached: true });
  fs.closeSync(fd);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  return { child, exited, logFile };
}

/**
 * The guard: `read` returns at the end of its stdin, a pipe whose only writer is this process, so when this process
 * ends however it ends; it then runs parts.js, which stops what the record still lists. A complete stop removes the
 * record and kills the guard first. A shell costs about a megabyte where a node process would cost tens.
 */
function startGuard(stateDir, logFile) {
  const fd = fs.openSync(logFile, 'a');
  const guard = spawn('sh', ['-c', 'read _ || exec "$@"', 'cl-guard', process.execPath, PARTS, stateDir], { stdio: ['pipe', fd, fd], detached: true });
  fs.closeSync(fd);
  guard.stdin.on('error', () => undefined);
  return guard;
}

function tail(file, bytes = 4000) {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.slice(-bytes);
  } catch {
    return '';
  }
}

const get = (kc, urlPath) => request(kc, 'GET', urlPath);

/** Waits for `check` to return a value, failing fast when `child` exits first. */
async function until(what, check, proc) {
  for (;;) {
    if (proc && proc.child.exitCode !== null) throw new Error(`${what}: the process exited (${proc.child.exitCode}); the end of ${proc.logFile}:\n${tail(proc.logFile)}`);
    const v = await check().catch(() => undefined);
    if (v) return v;
    await sleep(100);
  }
}

/**
 * The node's kubeconfig: the admin's cluster entry (this start's address and serving CA) with a client
 * certificate of its own (system:node:<name> in system:nodes), issued once by the state's client CA and kept.
 */
async function nodeKubeconfig(stateDir, admin, nodeName) {
  const pki = path.join(stateDir, 'pki');
  const [crt, key] = [path.join(pki, `node-${nodeName}.crt`), path.join(pki, `node-${nodeName}.key`)];
  if (!fs.existsSync(crt) || !fs.existsSync(key)) {
    const { issueClientCert } = require(path.join(ROOT, 'libs/pki'));
    const ca = { certPem: fs.readFileSync(path.join(pki, 'client-ca.crt'), 'utf8'), keyPem: fs.readFileSync(path.join(pki, 'client-ca.key'), 'utf8') };
    const pair = await issueClientCert(ca, { cn: `system:node:${nodeName}`, groups: ['system:nodes'] });
    fs.writeFileSync(key, pair.keyPem, { mode: 0o600 });
    fs.writeFileSync(crt, pair.certPem, { mode: 0o644 });
  }
  const b64 = (f) => fs.readFileSync(f).toString('base64');
  const text = admin.text
    .replace(/client-certificate-data: \S+/, `client-certificate-data: ${b64(crt)}`)
    .replace(/client-key-data: \S+/, `client-key-data: ${b64(key)}`)
    .replace(/cl-admin/g, `system:node:${nodeName}`);
  const file = path.join(stateDir, 'node.kubeconfig');
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}

function writeCletConfig(dir, stateDir, endpoint) {
  const file = path.join(dir, 'config.yaml');
  fs.mkdirSync(path.join(dir, 'manifests'), { recursive: true });
  fs.writeFileSync(
    file,
    [
      'apiVersion: kubelet.config.k8s.io/v1beta1',
      'kind: KubeletConfiguration',
      // Its server answers clients with certificates of the cluster's client CA (the admin's), nobody else.
      `authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: ${JSON.stringify(path.join(stateDir, 'pki', 'client-ca.crt'))}}}`,
      'authorization: {mode: AlwaysAllow}',
      // A laptop or CI machine often has swap or cgroup v1: the agent warns instead of refusing to start.
      'failSwapOn: false',
      'failCgroupV1: false',
      `staticPodPath: ${JSON.stringify(path.join(dir, 'manifests'))}`,
      `containerRuntimeEndpoint: ${JSON.stringify(endpoint)}`,
      'address: 127.0.0.1',
      'readOnlyPort: 0',
      'healthzPort: 0',
      '',
    ].join('\n'),
  );
  return file;
}

async function up(argv) {
  const opts = parseArgs(argv);
  if (!opts.node) {
    // The control plane alone: the API server's own up.js, in this process's place.
    process.argv = [process.argv[0], APISERVER_UP, `--state-dir=${opts.stateDir}`, ...opts.apiserverArgs];
    require(APISERVER_UP);
    return undefined;
  }
  const logs = path.join(opts.stateDir, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  // A previous start whose launcher and guard were both killed: its parts still hold the state and the ports.
  const previous = await stopLeftovers(opts.stateDir, (s) => process.stdout.write(`The previous start's parts: ${s}\n`));
  if (previous.running) {
    process.stderr.write(`Error: another start (pid ${previous.running}) runs with the state directory ${opts.stateDir}\n`);
    return 1;
  }
  const record = partsRecord(opts.stateDir);
  const guard = startGuard(opts.stateDir, path.join(logs, 'guard.log'));
  const started = [];
  let stopping = false;
  let stopAll;
  // One stop however many times it is asked for: every caller waits for the same one.
  const stop = () => {
    stopping = true;
    stopAll ??= (async () => {
      // The node first (its agent, then containerd with every container), the control plane last.
      for (const s of [...started].reverse()) await s.stop().catch((e) => process.stderr.write(`stopping: ${e.message}\n`));
      record.remove();
      guard.kill('SIGKILL');
    })();
    return stopAll;
  };
  const stopped = new Promise((resolve) => {
    // Ctrl-C reaches npm and this script alike, and npm passes it on: later signals must not cut the ordered
    // stop short (that would leave shims, mounts and network namespaces behind).
    const bye = () => {
      if (!stopping) process.stdout.write('Stopping the node agent, the containers and the API server...\n');
      void stop().then(() => resolve(0));
    };
    process.on('SIGINT', bye);
    process.on('SIGTERM', bye);
    process.on('SIGHUP', bye);
  });
  const childStop = (proc) => async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
    await proc.exited;
  };

  try {
    const kubeconfigFile = path.join(opts.stateDir, 'admin.kubeconfig');
    // The node registers 127.0.0.1 as its InternalIP and this machine's name, which may not resolve: the API
    // server reaches it (logs, exec, port-forward) by the address first.
    const addressTypes = opts.apiserverArgs.some((a) => a.startsWith('--kubelet-preferred-address-types')) ? [] : ['--kubelet-preferred-address-types=InternalIP,Hostname,InternalDNS,ExternalDNS,ExternalIP'];
    const apiserver = startLogged([APISERVER_UP, `--state-dir=${opts.stateDir}`, ...addressTypes, ...opts.apiserverArgs], path.join(logs, 'apiserver.log'), { ...process.env, CL_UP_QUIET: '1' });
    record.add({ kind: 'process', name: 'apiserver', pid: apiserver.child.pid });
    started.push({ stop: childStop(apiserver) });
    const startedAt = Date.now();
    // up.js rewrites the kubeconfig once the serving pair exists; read it after the server answers.
    await until('the API server to be ready', async () => {
      if (!fs.existsSync(kubeconfigFile) || fs.statSync(kubeconfigFile).mtimeMs < startedAt - 1000) return undefined;
      const r = await get(readKubeconfig(kubeconfigFile), '/readyz');
      return r.status === 200;
    }, apiserver);
    const admin = readKubeconfig(kubeconfigFile);

    let endpoint = opts.cletArgs.find((a) => a.startsWith('--container-runtime-endpoint='))?.split('=')[1];
    const host = !endpoint && opts.containerd !== 'private' ? await probeHostContainerd(opts.hostContainerdSocket) : undefined;
    if (host?.endpoint) {
      prepareHostContainerd(host);
      endpoint = host.endpoint;
      process.stdout.write(`Using the host's containerd at ${host.socket}.\n`);
      record.add({ kind: 'host-sandboxes', socket: host.socket, nodeName: opts.nodeName, kubeconfig: kubeconfigFile });
      // Runs after the agent has stopped and while the API server still answers: which pods were this node's.
      started.push({
        stop: async () => {
          const r = await get(admin, `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${opts.nodeName}`)}`);
          const uids = r.status === 200 ? JSON.parse(r.body).items.map((p) => p.metadata.uid) : [];
          await removePodSandboxes(host.socket, uids);
        },
      });
    } else if (host && opts.containerd === 'host') {
      throw new Error(`--containerd=host: ${host.reason}`);
    }
    if (!endpoint) {
      const { startContainerd, ensureTestImages } = require('../containerd/harness.js');
      if (stopping) return await stopped;
      const starting = startContainerd({ dir: path.join(opts.stateDir, 'containerd'), keepDir: true, detached: true, onSpawn: (instance) => record.add({ kind: 'containerd', ...instance }) });
      // A stop asked for while it starts waits for it, then stops it in its place in the order.
      started.push({ stop: () => starting.then((c) => c.stop(), () => undefined) });
      const ctd = await starting;
      if (stopping) return await stopped;
      ensureTestImages(ctd.socket);
      endpoint = ctd.endpoint;
    }
    if (stopping) return await stopped;
    const cletDir = path.join(opts.stateDir, 'clet');
    const config = writeCletConfig(cletDir, opts.stateDir, endpoint);
    const clet = startLogged(
      [
        CLET_MAIN,
        `--config=${config}`,
        `--clconfig=${await nodeKubeconfig(opts.stateDir, admin, opts.nodeName)}`,
        `--root-dir=${path.join(cletDir, 'root')}`,
        `--cert-dir=${path.join(cletDir, 'pki')}`,
        `--hostname-override=${opts.nodeName}`,
        `--port=${opts.nodePort}`,
        '--node-ip=127.0.0.1',
        ...opts.cletArgs,
      ],
      path.join(logs, 'clet.log'),
    );
    record.add({ kind: 'process', name: 'clet', pid: clet.child.pid });
    started.push({ stop: childStop(clet) });
    await until(`the node ${opts.nodeName} to be Ready`, async () => {
      const r = await get(admin, `/api/v1/nodes/${opts.nodeName}`);
      if (r.status !== 200) return undefined;
      return JSON.parse(r.body).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    }, clet);
    process.stdout.write(
      [
        '',
        `cl is running: a one-node cluster (node ${opts.nodeName}). Reach it with kubectl:`,
        '',
        `  export KUBECONFIG=${kubeconfigFile}`,
        '  kubectl get nodes',
        '  kubectl run hello --image=docker.io/cl/busybox:test -- sleep 3600',
        '  kubectl get pods -o wide',
        '',
        `The node has the locally built image docker.io/cl/busybox:test (no registry needed). Logs: ${logs}/.`,
        'Stop it with Ctrl-C.',
        '',
        '',
      ].join('\n'),
    );
    // Any part exiting on its own ends the cluster: a half-cluster is worse than a clear stop.
    const failed = await Promise.race([stopped, apiserver.exited.then((c) => ({ who: 'apiserver', code: c, log: apiserver.logFile })), clet.exited.then((c) => ({ who: 'clet', code: c, log: clet.logFile }))]);
    // A part exiting because Ctrl-C began the stop is no failure: wait for the whole stop.
    if (typeof failed !== 'object' || stopping) return await stopped;
    process.stderr.write(`${failed.who} exited (${failed.code}); the end of ${failed.log}:\n${tail(failed.log)}\n`);
    await stop();
    return 1;
  } catch (e) {
    if (stopping) return await stopped;
    process.stderr.write(`Error: ${e.message}\n`);
    await stop();
    return 1;
  }
}

up(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (e) => {
    process.stderr.write(`Error: ${e.stack ?? e}\n`);
    process.exit(1);
  },
);
