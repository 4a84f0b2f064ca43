'use strict';
// Pod start latency: time from a static pod manifest written to all its containers running, through
// the clet pod manager, against the same CRI calls (RunPodSandbox, ImageStatus, CreateContainer,
// StartContainer) made directly in sequence, on the same private containerd in the same run.
// Upstream SLO (pod start, image present): p99 <= 5s.
//
//   npx nx build clet && node bench/pod-start/index.js [--runs=10] [--pods=30]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startContainerd, ensureTestImages } = require('../../tools/containerd/harness.js');
const { CriClient } = require('@cl/cri');
const { createPodManager } = require('../../apps/clet/dist/pods/index.js');

const arg = (name, dflt) => Number((process.argv.find((a) => a.startsWith(`--${name}=`)) || '').split('=')[1] || dflt);
const RUNS = arg('runs', 10);
const PROFILE = process.argv.includes('--profile');
const PODS = arg('pods', 30);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  return { n: s.length, median: q(0.5), p99: q(0.99), max: s[s.length - 1] };
}
const fmt = (x) => `${x.toFixed(1)}ms`;

const podSpec = (image) => ({
  hostNetwork: true, terminationGracePeriodSeconds: 2,
  containers: [{ name: 'c', image, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done'] }],
});

// --profile: wrap the CRI client's methods (the manager and this script share the module) to record,
// per pod of the manager, when each step of its start began and ended, relative to the manifest write.
const marks = new Map(); // pod name -> { step: [startMs, endMs] }
const idToPod = new Map();
function instrumentCri() {
  const podOf = (method, args) => {
    if (method === 'runPodSandbox') return args[0]?.metadata?.name;
    if (method === 'createContainer') return args[2]?.metadata?.name;
    if (method === 'startContainer') return idToPod.get(args[0]);
    return undefined;
  };
  for (const method of ['runPodSandbox', 'createContainer', 'startContainer']) {
    const orig = CriClient.prototype[method];
    CriClient.prototype[method] = async function (...args) {
      const pod = podOf(method, args);
      const t = performance.now();
      const res = await orig.apply(this, args);
      if (pod) {
        if (method === 'createContainer') idToPod.set(res, pod);
        const m = marks.get(pod) ?? {};
        m[method] = [t, performance.now()];
        marks.set(pod, m);
      }
      return res;
    };
  }
}

function profileReport(names, t0, seen, running) {
  const phase = (f) => stats(names.map(f).filter((x) => Number.isFinite(x)));
  const m = (n) => marks.get(`${n}-bench`) ?? {};
  const rows = {
    'manifest -> in pods()': phase((n) => seen.get(n) - t0),
    'pods() -> RunPodSandbox sent': phase((n) => m(n).runPodSandbox?.[0] - seen.get(n)),
    'RunPodSandbox': phase((n) => m(n).runPodSandbox?.[1] - m(n).runPodSandbox?.[0]),
    'sandbox -> CreateContainer sent': phase((n) => m(n).createContainer?.[0] - m(n).runPodSandbox?.[1]),
    'CreateContainer': phase((n) => m(n).createContainer?.[1] - m(n).createContainer?.[0]),
    'StartContainer': phase((n) => m(n).startContainer?.[1] - m(n).startContainer?.[0]),
    'started -> running in pods()': phase((n) => running.get(n) - m(n).startContainer?.[1]),
  };
  console.log('  profile of the 30-pod run (median / p99 ms per pod):');
  for (const [k, v] of Object.entries(rows)) console.log(`    ${k.padEnd(34)} ${v.median.toFixed(1).padStart(8)} ${v.p99.toFixed(1).padStart(8)}`);
  return Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, { median: v.median, p99: v.p99 }]));
}

async function viaManager(mgr, dir, image, names) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const n of names) fs.writeFileSync(path.join(dir, `${n}.json`), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: n }, spec: podSpec(image) }));
  const done = new Map();
  const seen = new Map();
  while (done.size < names.length) {
    for (const p of mgr.pods()) {
      const base = p.metadata.name.replace(/-bench$/, '');
      if (!names.includes(base)) continue;
      if (!seen.has(base)) seen.set(base, performance.now());
      if (!done.has(base) && p.status?.containerStatuses?.every((c) => c.state.running)) done.set(base, performance.now() - t0);
    }
    await sleep(5);
  }
  const latencies = names.map((n) => done.get(n));
  const cpu = process.cpuUsage(cpu0);
  let profile;
  if (PROFILE && names.length > 1) {
    profile = profileReport(names, t0, seen, new Map(names.map((n) => [n, t0 + done.get(n)])));
    // This process is the agent (plus the 5ms status poll): its CPU share of the wall time shows
    // whether the agent or the runtime is the bottleneck.
    profile.agentCpuMs = (cpu.user + cpu.system) / 1000;
    console.log(`    agent process CPU ${profile.agentCpuMs.toFixed(0)}ms over ${Math.max(...latencies).toFixed(0)}ms wall`);
  }
  // Tear down before the next round so kills do not overlap the next measurement.
  for (const n of names) fs.rmSync(path.join(dir, `${n}.json`));
  while (mgr.pods().some((p) => names.includes(p.metadata.name.replace(/-bench$/, '')))) await sleep(20);
  return { latencies, total: Math.max(...latencies), profile };
}

async function direct(cri, image, names, logRoot) {
  const t0 = performance.now();
  const latencies = [];
  const ids = [];
  for (const n of names) {
    const uid = `direct-${n}-${Date.now()}`;
    const logDirectory = path.join(logRoot, uid);
    fs.mkdirSync(path.join(logDirectory, 'c'), { recursive: true });
    const sb = {
      // No io.kubernetes.pod.uid label: the agent's housekeeping would kill these as orphans.
      metadata: { name: n, namespace: 'default', uid, attempt: 0 }, logDirectory,
      linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } },
    };
    const sandboxId = await cri.runPodSandbox(sb);
    const img = await cri.imageStatus({ image });
    const id = await cri.createContainer(sandboxId, {
      metadata: { name: 'c', attempt: 0 }, image: { image: img.id }, logPath: 'c/0.log',
      command: podSpec(image).containers[0].command,
    }, sb);
    await cri.startContainer(id);
    latencies.push(performance.now() - t0);
    ids.push([sandboxId, id]);
  }
  const total = performance.now() - t0;
  for (const [sandboxId, id] of ids) {
    await cri.stopContainer(id, 2);
    await cri.removeContainer(id);
    await cri.stopPodSandbox(sandboxId);
    await cri.removePodSandbox(sandboxId);
  }
  return { latencies, total };
}

(async () => {
  if (PROFILE) instrumentCri();
  const ctd = await startContainerd();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-bench-pods-'));
  const manifests = path.join(tmp, 'manifests');
  fs.mkdirSync(manifests);
  const { busybox } = ensureTestImages(ctd.socket);
  const cri = await CriClient.connect({ runtimeEndpoint: ctd.endpoint });
  const mgr = createPodManager({
    config: {
      staticPodPath: manifests, staticPodURL: '', staticPodURLHeader: {}, fileCheckFrequency: '20s', httpCheckFrequency: '20s',
      syncFrequency: '1m0s', containerRuntimeEndpoint: ctd.endpoint, imageServiceEndpoint: '', runtimeRequestTimeout: '2m0s',
      serializeImagePulls: true, registryPullQPS: 5, registryBurst: 10, containerLogMaxSize: '10Mi', containerLogMaxFiles: 5,
      containerLogMonitorInterval: '10s', imageGCHighThresholdPercent: 100, imageGCLowThresholdPercent: 80, imageMinimumGCAge: '2m0s',
      maxPods: 110, podLogsDir: path.join(tmp, 'logs'), runOnce: false, resolvConf: '/etc/resolv.conf', clusterDNS: [], clusterDomain: '',
    },
    nodeName: 'bench', log: () => {}, rootDir: path.join(tmp, 'root'), nodeIP: '127.0.0.1',
    containerLogsDir: path.join(tmp, 'containers'), // not the host's /var/log/containers
  });
  await mgr.start();
  try {
    // Warm-up: first sandbox/container pays snapshot preparation.
    await direct(cri, busybox, ['warm'], path.join(tmp, 'direct'));
    await viaManager(mgr, manifests, busybox, ['warm']);

    const one = { mgr: [], direct: [] };
    for (let i = 0; i < RUNS; i++) {
      one.direct.push((await direct(cri, busybox, [`one${i}`], path.join(tmp, 'direct'))).total);
      one.mgr.push((await viaManager(mgr, manifests, busybox, [`one${i}`])).total);
    }
    const names = Array.from({ length: PODS }, (_, i) => `many${i}`);
    const manyDirect = await direct(cri, busybox, names, path.join(tmp, 'direct'));
    const manyMgr = await viaManager(mgr, manifests, busybox, names);

    const r = {
      onePod: { clet: stats(one.mgr), direct: stats(one.direct) },
      manyPods: { pods: PODS, clet: { ...stats(manyMgr.latencies), allRunning: manyMgr.total }, direct: { ...stats(manyDirect.latencies), allRunning: manyDirect.total } },
    };
    r.onePod.ratioMedian = r.onePod.clet.median / r.onePod.direct.median;
    r.manyPods.ratioAllRunning = manyMgr.total / manyDirect.total;
    r.manyPods.ratioP99 = r.manyPods.clet.p99 / r.manyPods.direct.p99;
    console.log(`pod start, image present (${RUNS} runs of 1 pod; 1 run of ${PODS} pods), upstream SLO p99 <= 5000ms`);
    console.log(`  1 pod   clet:   median ${fmt(r.onePod.clet.median)}  p99 ${fmt(r.onePod.clet.p99)}`);
    console.log(`  1 pod   direct: median ${fmt(r.onePod.direct.median)}  p99 ${fmt(r.onePod.direct.p99)}   ratio (median) ${r.onePod.ratioMedian.toFixed(2)}x`);
    console.log(`  ${PODS} pods clet:   median ${fmt(r.manyPods.clet.median)}  p99 ${fmt(r.manyPods.clet.p99)}  all running ${fmt(manyMgr.total)}`);
    console.log(`  ${PODS} pods direct: median ${fmt(r.manyPods.direct.median)}  p99 ${fmt(r.manyPods.direct.p99)}  all running ${fmt(manyDirect.total)}   ratio (all running) ${r.manyPods.ratioAllRunning.toFixed(2)}x`);
    if (manyMgr.profile) r.manyPods.profile = manyMgr.profile;
    console.log(JSON.stringify({ bench: 'pod-start', ...r }));
  } finally {
    await mgr.stop();
    cri.close();
    await ctd.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });
