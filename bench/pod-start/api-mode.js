'use strict';
// API-server mode of bench/pod-start: the built API server and the built clet joined to it (--clconfig), on the
// bench's containerd. Pods are POSTed with spec.nodeName set; one watch on the namespace, opened before the
// creates, sees each one reach status.phase=Running. Plain node:https, so the client adds nothing of its own.
const fs = require('node:fs');
const https = require('node:https');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { freePort, startApiserver } = require('../lib/https-load');

const CLET_DIST = path.join(__dirname, '..', '..', 'apps', 'clet', 'dist');
// main.js is the built binary (a loader of the one-file bundle); cli.js is tsc's output it was bundled from, whose
// modules a preloaded tracer (clet-trace.js) can patch: the bundle's copies are out of its reach.
const CLET = path.join(CLET_DIST, 'main.js');
const CLET_UNBUNDLED = path.join(CLET_DIST, 'cli.js');
const NS = 'default';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The built API server (not counted) and a keep-alive HTTPS client trusting its self-signed CA. */
async function startApi(dir) {
  const api = await startApiserver(dir, 'apiserver');
  const pems = fs.readFileSync(path.join(api.certDir, 'apiserver.crt'), 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g);
  const ca = pems[pems.length - 1];
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.base}`,
    `    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`, 'users:', '- name: u', '  user: {}',
    'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  const agent = new https.Agent({ keepAlive: true, ca });
  const u = new URL(api.base);
  const request = (method, p, body) => new Promise((resolve, reject) => {
    const req = https.request({ host: u.hostname, port: u.port, path: p, method, agent, headers: body ? { 'Content-Type': 'application/json' } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode >= 300) reject(Object.assign(new Error(`${method} ${p}: ${res.statusCode} ${text.slice(0, 300)}`), { code: res.statusCode }));
        else resolve(text ? JSON.parse(text) : undefined);
      });
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
  /** A watch from `resourceVersion`; `onEvent(type, obj, at)`. Returns a stop function. */
  const watch = (p, resourceVersion, onEvent) => {
    const req = https.request({ host: u.hostname, port: u.port, path: `${p}?watch=1&resourceVersion=${resourceVersion}`, agent: false, ca }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        const at = performance.now();
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) { const e = JSON.parse(line); onEvent(e.type, e.object, at); }
        }
      });
    });
    req.on('error', () => undefined);
    req.end();
    return () => req.destroy();
  };
  return {
    ...api, kubeconfig, request, watch,
    async stop() {
      agent.destroy();
      api.child.kill('SIGTERM');
      await new Promise((r) => (api.child.exitCode !== null ? r() : api.child.once('exit', r)));
    },
  };
}

/** The built clet joined to `api`, its log in `dir/clet.log`; resolves once its Node is Ready. */
async function startClet(api, { dir, endpoint, nodeName, verbosity = 0, execArgv = [], env = {}, unbundled = false }) {
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, 'clet.yaml');
  fs.writeFileSync(config, [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    'authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}', 'authorization: {mode: AlwaysAllow}',
    'failSwapOn: false', 'failCgroupV1: false', `containerRuntimeEndpoint: ${endpoint}`,
    'address: 127.0.0.1', 'readOnlyPort: 0', 'healthzPort: 0',
    // Pod logs in the bench's temp dir; the /var/log/containers links have a fixed place (removePodLogs).
    `podLogsDir: ${path.join(dir, 'pod-logs')}`, '',
  ].join('\n'));
  const logFile = path.join(dir, 'clet.log');
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...execArgv, unbundled ? CLET_UNBUNDLED : CLET, `--config=${config}`, `--clconfig=${api.kubeconfig}`, `--root-dir=${path.join(dir, 'root')}`,
    `--cert-dir=${path.join(dir, 'pki')}`, `--hostname-override=${nodeName}`, `--port=${await freePort()}`, '--node-ip=127.0.0.1', `-v=${verbosity}`,
  ], { stdio: ['ignore', fd, fd], env: { ...process.env, ...env } });
  fs.closeSync(fd);
  const exited = new Promise((r) => child.once('exit', r));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`clet exited ${child.exitCode}:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
    const node = await api.request('GET', `/api/v1/nodes/${nodeName}`).catch(() => undefined);
    if (node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) break;
    if (i > 600) {
      await stop();
      throw new Error(`node ${nodeName} not Ready after 60s:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
    }
    await sleep(100);
  }
  return { child, logFile, stop };
}

const apiPod = (name, nodeName, image) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS },
  spec: {
    nodeName, terminationGracePeriodSeconds: 1, hostNetwork: true,
    containers: [{ name: 'c', image, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }],
  },
});

/**
 * POSTs the pods at once (each timed from its own POST) and resolves with each one's ms to Running as the watch
 * saw it; for --profile also the epoch ms of each POST, its answer and the watch's Running, and the watch's
 * timeline of each pod: [ms since POST, type, phase, first container's state].
 */
async function createAndWaitRunning(api, names, nodeName, image) {
  // One keep-alive connection per POST made beforehand, so no POST pays a TLS handshake.
  await Promise.all(names.map(() => api.request('GET', `/api/v1/namespaces/${NS}/pods?limit=1`)));
  const list = await api.request('GET', `/api/v1/namespaces/${NS}/pods?limit=1`);
  const posted = new Map();
  const running = new Map();
  const timeline = new Map(names.map((n) => [n, []]));
  let wake = () => undefined;
  const stopWatch = api.watch(`/api/v1/namespaces/${NS}/pods`, list.metadata.resourceVersion, (type, pod, at) => {
    const n = pod?.metadata?.name;
    if (!timeline.has(n) || !posted.has(n)) return;
    const cs = pod.status?.containerStatuses?.[0]?.state;
    timeline.get(n).push([at - posted.get(n), type, pod.status?.phase, cs ? Object.keys(cs)[0] : '-']);
    if (pod.status?.phase === 'Running' && !running.has(n)) {
      running.set(n, at - posted.get(n));
      wake();
    }
  });
  // The watch is open before the first create: one round trip on it is not needed, the list's RV anchors it.
  await sleep(50);
  const answered = new Map();
  await Promise.all(names.map(async (n) => {
    posted.set(n, performance.now());
    await api.request('POST', `/api/v1/namespaces/${NS}/pods`, apiPod(n, nodeName, image));
    answered.set(n, performance.now());
  }));
  const deadline = Date.now() + 120_000;
  while (running.size < names.length) {
    if (Date.now() > deadline) throw new Error(`pods not Running after 120s: ${names.filter((n) => !running.has(n)).join(' ')}`);
    await new Promise((r) => { wake = r; setTimeout(r, 200); });
  }
  stopWatch();
  const epoch = (m, plus = (n) => 0) => new Map(names.map((n) => [n, performance.timeOrigin + m.get(n) + plus(n)]));
  return {
    latencies: names.map((n) => running.get(n)), timeline,
    postedAt: epoch(posted), answeredAt: epoch(answered), runningAt: epoch(posted, (n) => running.get(n)),
  };
}

/** Deletes the pods and waits until the API server no longer has them (the agent confirmed each one stopped). */
async function deletePods(api, names) {
  await Promise.all(names.map((n) => api.request('DELETE', `/api/v1/namespaces/${NS}/pods/${n}`).catch((e) => { if (e.code !== 404) throw e; })));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { items } = await api.request('GET', `/api/v1/namespaces/${NS}/pods`);
    const left = items.filter((p) => names.includes(p.metadata.name));
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      // Force them out so the run still ends clean; the agent kills what it no longer sees.
      await Promise.all(left.map((p) => api.request('DELETE', `/api/v1/namespaces/${NS}/pods/${p.metadata.name}?gracePeriodSeconds=0`).catch(() => undefined)));
      return;
    }
    await sleep(100);
  }
}

/** What a pod run by the clet left under the host's fixed log paths (/var/log/pods, /var/log/containers). */
function removePodLogs(names) {
  const remove = (dir, match) => {
    if (!fs.existsSync(dir)) return;
    for (const n of fs.readdirSync(dir)) if (match(n)) fs.rmSync(path.join(dir, n), { recursive: true, force: true });
  };
  remove('/var/log/pods', (n) => names.some((p) => n.startsWith(`${NS}_${p}_`)));
  remove('/var/log/containers', (n) => names.some((p) => n.startsWith(`${p}_${NS}_`)));
}

module.exports = { startApi, startClet, createAndWaitRunning, deletePods, removePodLogs };
