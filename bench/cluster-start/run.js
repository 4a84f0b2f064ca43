// npm start's cluster (tools/cluster/up.js: API server with scheduler and controllers, a private containerd,
// the node agent) from process start to the node Ready and to a first pod Running, and the idle RSS of each
// process; against the parts alone in the same run: the control plane by itself (`--no-node`, start to
// /readyz 200) and a bare containerd (start to its CRI plugin serving), which bound what the cluster can reach.
// Fresh state (first start: certificates, image import) and reused state (a restart) are measured apart.
// Needs the apps built (`npx nx run-many -t build -p apiserver clet`). Targets (issue 16): node Ready <= 5 s,
// first pod Running <= 8 s, API server <= 120 MB and node agent <= 80 MB idle.
//
//   node bench/cluster-start/run.js [rounds]
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { readKubeconfig, request: adminRequest } = require('../../tools/cluster/admin-client.js');
const { startContainerd } = require('../../tools/containerd/harness.js');

const ROUNDS = Number(process.argv[2] ?? 3);
const UP = path.join(__dirname, '..', '..', 'tools', 'cluster', 'up.js');
const TARGETS = { nodeReadyMs: 5000, podRunningMs: 8000, apiserverRssMB: 120, cletRssMB: 80 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const kubeconfig = readKubeconfig;
/** A request as the admin; a server not answering yet reads as status 0. */
const request = (kc, method, urlPath, body) => adminRequest(kc, method, urlPath, body).catch(() => ({ status: 0, body: '' }));

const rssMB = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return NaN;
  }
};

/** The process ids of the cluster's parts, found by their command lines under this state directory. */
function partPids(stateDir) {
  const found = {};
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    let cmd;
    try {
      cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes(stateDir)) continue;
    if (cmd.includes('apiserver/dist/up.js')) found.apiserver = Number(p);
    else if (cmd.includes('clet/dist/main.js')) found.clet = Number(p);
    else if (cmd.startsWith('containerd\0')) found.containerd = Number(p);
  }
  return found;
}

/** One cluster start: ms to the node Ready, ms to a pod (created as soon as the API takes it) Running, idle RSS. */
async function clusterStart(stateDir) {
  const [port, nodePort] = [await freePort(), await freePort()];
  const start = process.hrtime.bigint();
  const ms = () => Number(process.hrtime.bigint() - start) / 1e6;
  const child = spawn(process.execPath, [UP, `--state-dir=${stateDir}`, `--secure-port=${port}`, `--node-port=${nodePort}`, '--node-name=bench-node'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.once('exit', r));
  const check = () => {
    if (child.exitCode !== null) throw new Error(`the cluster exited (${child.exitCode}):\n${out}`);
  };
  const kcFile = path.join(stateDir, 'admin.kubeconfig');
  let kc;
  const pod = `p${Date.now()}`;
  let podCreated = false;
  let nodeReady;
  let podRunning;
  try {
    while (podRunning === undefined || nodeReady === undefined) {
      check();
      if (!kc && fs.existsSync(kcFile) && fs.statSync(kcFile).mtimeMs >= Date.now() - ms() - 1000) kc = kubeconfig(kcFile);
      if (kc && !podCreated) {
        const r = await request(kc, 'POST', '/api/v1/namespaces/default/pods', {
          metadata: { name: pod },
          spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'docker.io/cl/busybox:test', command: ['sleep', '3600'] }] },
        });
        podCreated = r.status === 201;
      }
      if (kc && nodeReady === undefined) {
        const r = await request(kc, 'GET', '/api/v1/nodes/bench-node');
        if (r.status === 200 && JSON.parse(r.body).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) nodeReady = ms();
      }
      if (podCreated && podRunning === undefined) {
        const r = await request(kc, 'GET', `/api/v1/namespaces/default/pods/${pod}`);
        if (r.status === 200 && JSON.parse(r.body).status?.phase === 'Running') podRunning = ms();
      }
      await sleep(20);
    }
    // Idle: the pod runs, the start-up work is over; let the first status reports and GC settle.
    await sleep(10_000);
    const pids = partPids(stateDir);
    const rss = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, rssMB(pid)]));
    await request(kc, 'DELETE', `/api/v1/namespaces/default/pods/${pod}?gracePeriodSeconds=0`);
    return { nodeReadyMs: nodeReady, podRunningMs: podRunning, rss };
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}

/** The control plane alone: ms from spawn to /readyz 200. */
async function controlPlaneStart(stateDir) {
  const port = await freePort();
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, [UP, '--no-node', `--state-dir=${stateDir}`, `--secure-port=${port}`], { stdio: 'ignore' });
  const kcFile = path.join(stateDir, 'admin.kubeconfig');
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error('the control plane exited');
      if (fs.existsSync(kcFile) && (await request(kubeconfig(kcFile), 'GET', '/readyz')).status === 200) return Number(process.hrtime.bigint() - start) / 1e6;
      await sleep(10);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    fs.rmSync(kcFile, { force: true });
  }
}

async function containerdStart() {
  const start = process.hrtime.bigint();
  const ctd = await startContainerd();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  await ctd.stop();
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

(async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-start-'));
  const fresh = [];
  const reused = [];
  const alone = [];
  const ctd = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const dir = path.join(tmp, `round${i}`);
      fresh.push(await clusterStart(dir));
      reused.push(await clusterStart(dir));
      alone.push(await controlPlaneStart(path.join(tmp, `alone${i}`)));
      ctd.push(await containerdStart());
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const f = (x) => `${(x / 1000).toFixed(2)} s`;
  const m = (x) => `${x.toFixed(0)} MB`;
  const result = { bench: 'cluster-start', rounds: ROUNDS, targets: TARGETS, baseline: { controlPlaneReadyMs: median(alone), containerdReadyMs: median(ctd) } };
  for (const [name, runs] of [['fresh state', fresh], ['reused state', reused]]) {
    const node = median(runs.map((r) => r.nodeReadyMs));
    const pod = median(runs.map((r) => r.podRunningMs));
    const rss = {};
    for (const part of ['apiserver', 'clet', 'containerd']) rss[part] = median(runs.map((r) => r.rss[part] ?? NaN));
    const met = (ok) => (ok ? 'met' : 'MISSED');
    console.log(
      `${name.padEnd(13)} node Ready ${f(node)} (target <= ${f(TARGETS.nodeReadyMs)}: ${met(node <= TARGETS.nodeReadyMs)})   first pod Running ${f(pod)} (target <= ${f(TARGETS.podRunningMs)}: ${met(pod <= TARGETS.podRunningMs)})`,
    );
    console.log(
      `${''.padEnd(13)} idle RSS: apiserver ${m(rss.apiserver)} (<= ${TARGETS.apiserverRssMB}: ${met(rss.apiserver <= TARGETS.apiserverRssMB)})   clet ${m(rss.clet)} (<= ${TARGETS.cletRssMB}: ${met(rss.clet <= TARGETS.cletRssMB)})   containerd ${m(rss.containerd)}`,
    );
    result[name === 'fresh state' ? 'fresh' : 'reused'] = { nodeReadyMs: node, podRunningMs: pod, rssMB: rss, runs };
  }
  console.log(`baseline      control plane alone to /readyz ${f(median(alone))}   bare containerd to CRI serving ${f(median(ctd))}   (medians of ${ROUNDS})`);
  console.log(JSON.stringify(result));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
