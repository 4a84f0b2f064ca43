'use strict';
// Pod start latency: time from a static pod manifest written to all its containers running, through the clet
// pod manager, against the same CRI calls (RunPodSandbox, ImageStatus, CreateContainer, StartContainer) made
// directly in sequence, on the same private containerd in the same run. Then API-server mode against the
// static case, in alternating rounds: the built API server and the built clet joined to it (--clconfig), 30 pods
// POSTed with spec.nodeName, each timed from its POST to a watch (opened before the creates) seeing Running.
// Upstream SLO (pod start, image present): p99 <= 5s. Issue targets (API mode): p99 <= 2.5s and <= 1.3x static.
//
//   npx nx run-many -t build -p apiserver clet && node bench/pod-start/index.js [--runs=10] [--pods=30] [--rounds=3] [--profile]
//   (--profile also traces the clet of each API-mode round with clet-trace.js; CLET_EXEC_ARGV adds node options)
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startContainerd, ensureTestImages } = require('../../tools/containerd/harness.js');
const { CriClient } = require('@cl/cri');
const { createPodManager } = require('../../apps/clet/dist/pods/index.js');
const { startApi, startClet, createAndWaitRunning, deletePods, removePodLogs } = require('./api-mode');

const arg = (name, dflt) => Number((process.argv.find((a) => a.startsWith(`--${name}=`)) || '').split('=')[1] || dflt);
const RUNS = arg('runs', 10);
const PROFILE = process.argv.includes('--profile');
const PODS = arg('pods', 30);
const ROUNDS = arg('rounds', 3);
const TARGET_P99_MS = 2500;
const TARGET_RATIO = 1.3;
const NODE = 'bench-api-node';
// Node options for the clet process, e.g. CLET_EXEC_ARGV='--cpu-prof --cpu-prof-dir=/tmp/prof'.
const CLET_EXEC_ARGV = (process.env.CLET_EXEC_ARGV ?? '').split(' ').filter(Boolean);
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
  // A step no mark was found for (the tracer did not reach it) prints as '-', not as a crash after the run.
  const cell = (x) => (x === undefined ? '-' : x.toFixed(1)).padStart(8);
  for (const [k, v] of Object.entries(rows)) console.log(`    ${k.padEnd(34)} ${cell(v.median)} ${cell(v.p99)}`);
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

/** CPU seconds (user + system) of a process so far, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/**
 * --profile of one API-mode round: the clet's trace (clet-trace.js) against each pod's POST, as the median / p99
 * of each step between the POST and the watch seeing Running.
 */
function apiProfileReport(traceFile, r) {
  const marks = fs.readFileSync(traceFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const by = new Map();
  for (const m of marks) (by.get(m.pod) ?? by.set(m.pod, []).get(m.pod)).push(m);
  const first = (n, step, pred = () => true) => (by.get(n) ?? []).find((m) => m.step === step && pred(m));
  const names = [...r.postedAt.keys()];
  const at = (n) => r.postedAt.get(n);
  const d = (f) => stats(names.map(f).filter((x) => Number.isFinite(x)));
  const running = (m) => m.phase === 'Running';
  const rows = {
    'POST -> POST answered': d((n) => r.answeredAt.get(n) - at(n)),
    'POST -> informer delivers': d((n) => first(n, 'informer')?.start - at(n)),
    'informer -> handed to pod manager': d((n) => first(n, 'setApiPods')?.start - first(n, 'informer')?.start),
    'handed -> its sync starts': d((n) => first(n, 'syncOne')?.start - first(n, 'setApiPods')?.start),
    'sync start -> RunPodSandbox sent': d((n) => first(n, 'RunPodSandbox')?.start - first(n, 'syncOne')?.start),
    '  of which: runtime state read': d((n) => first(n, 'state')?.end - first(n, 'state')?.start),
    '  of which: API volumes set up': d((n) => first(n, 'volumes')?.end - first(n, 'volumes')?.start),
    'RunPodSandbox': d((n) => first(n, 'RunPodSandbox')?.end - first(n, 'RunPodSandbox')?.start),
    'sandbox -> CreateContainer sent': d((n) => first(n, 'CreateContainer')?.start - first(n, 'RunPodSandbox')?.end),
    'CreateContainer': d((n) => first(n, 'CreateContainer')?.end - first(n, 'CreateContainer')?.start),
    'StartContainer': d((n) => first(n, 'StartContainer')?.end - first(n, 'StartContainer')?.start),
    'started -> Running reported': d((n) => first(n, 'reportStatus', running)?.start - first(n, 'StartContainer')?.end),
    'reported -> Running PATCH sent': d((n) => first(n, 'statusPatch', running)?.start - first(n, 'reportStatus', running)?.start),
    'Running PATCH': d((n) => first(n, 'statusPatch', running)?.end - first(n, 'statusPatch', running)?.start),
    'PATCH sent -> watch sees Running': d((n) => r.runningAt.get(n) - first(n, 'statusPatch', running)?.start),
  };
  // Up to the watch seeing Running (what the deletion afterwards does is not part of the start).
  const count = (step) => d((n) => (by.get(n) ?? []).filter((m) => m.step === step && m.start <= r.runningAt.get(n)).length);
  console.log('  profile of an API-mode round (median / p99 ms per pod; times across the clet and this process):');
  // A step no mark was found for (the tracer did not reach it) prints as '-', not as a crash after the run.
  const cell = (x) => (x === undefined ? '-' : x.toFixed(1)).padStart(8);
  for (const [k, v] of Object.entries(rows)) console.log(`    ${k.padEnd(34)} ${cell(v.median)} ${cell(v.p99)}`);
  const counts = { statusPatches: count('statusPatch'), syncs: count('syncOne'), informerEvents: count('informer') };
  console.log(`    per pod until Running: status PATCHes ${counts.statusPatches.median}/${counts.statusPatches.max}, syncs ${counts.syncs.median}/${counts.syncs.max}, informer events ${counts.informerEvents.median}/${counts.informerEvents.max} (median/max)`);
  return { ...Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, { median: v.median, p99: v.p99 }])), counts };
}

(async () => {
  if (PROFILE) instrumentCri();
  const ctd = await startContainerd();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-bench-pods-'));
  const manifests = path.join(tmp, 'manifests');
  fs.mkdirSync(manifests);
  const { busybox } = ensureTestImages(ctd.socket);
  const cri = await CriClient.connect({ runtimeEndpoint: ctd.endpoint });
  // A manager on the bench's containerd kills any labelled pod it does not know (housekeeping), so the static
  // manager and the clet process never run at the same time: each API-mode round starts and stops its own.
  const newManager = () => createPodManager({
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
  let mgr = newManager();
  await mgr.start();
  let api;
  let clet;
  const apiPodNames = [];
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
    let manyMgr = await viaManager(mgr, manifests, busybox, names);
    await mgr.stop();
    mgr = undefined;

    // Static against API-server mode, alternating which goes first; round 0's static run is the one above.
    api = await startApi(path.join(tmp, 'api'));
    const staticRounds = [manyMgr];
    const apiRounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['static', 'api'] : ['api', 'static'];
      for (const which of order) {
        if (which === 'static') {
          if (round === 0) continue;
          mgr = newManager();
          await mgr.start();
          await viaManager(mgr, manifests, busybox, ['warm']);
          staticRounds.push(await viaManager(mgr, manifests, busybox, names));
          await mgr.stop();
          mgr = undefined;
          continue;
        }
        const traceFile = path.join(tmp, `clet-trace-${round}.jsonl`);
        clet = await startClet(api, {
          dir: path.join(tmp, 'clet'), endpoint: ctd.endpoint, nodeName: NODE,
          execArgv: [...CLET_EXEC_ARGV, ...(PROFILE ? ['--require', path.join(__dirname, 'clet-trace.js')] : [])],
          env: PROFILE ? { CLET_TRACE_FILE: traceFile } : {}, unbundled: PROFILE,
        });
        // Warm-up of this agent process, as the static manager's.
        const warm = [`api-warm-${round}`];
        apiPodNames.push(...warm);
        await createAndWaitRunning(api, warm, NODE, busybox);
        await deletePods(api, warm);
        const apiNames = names.map((n) => `api-r${round}-${n}`);
        apiPodNames.push(...apiNames);
        const cpu0 = cpuSeconds(clet.child.pid);
        const r = await createAndWaitRunning(api, apiNames, NODE, busybox);
        r.cletCpuMs = (cpuSeconds(clet.child.pid) - cpu0) * 1000;
        r.total = Math.max(...r.latencies);
        await deletePods(api, apiNames);
        await clet.stop();
        clet = undefined;
        if (PROFILE) {
          if (process.env.KEEP_TRACE) fs.copyFileSync(traceFile, process.env.KEEP_TRACE);
          r.profile = apiProfileReport(traceFile, r);
          console.log(`    clet process CPU ${r.cletCpuMs.toFixed(0)}ms over ${r.total.toFixed(0)}ms wall`);
        }
        apiRounds.push(r);
      }
    }
    manyMgr = staticRounds[0];

    const r = {
      onePod: { clet: stats(one.mgr), direct: stats(one.direct) },
      manyPods: { pods: PODS, clet: { ...stats(manyMgr.latencies), allRunning: manyMgr.total }, direct: { ...stats(manyDirect.latencies), allRunning: manyDirect.total } },
    };
    r.onePod.ratioMedian = r.onePod.clet.median / r.onePod.direct.median;
    r.manyPods.ratioAllRunning = manyMgr.total / manyDirect.total;
    r.manyPods.ratioP99 = r.manyPods.clet.p99 / r.manyPods.direct.p99;
    const medianOf = (xs) => stats(xs).median;
    const perRound = apiRounds.map((a, i) => {
      const st = stats(staticRounds[i].latencies);
      const ap = stats(a.latencies);
      return { static: { p50: st.median, p99: st.p99 }, api: { p50: ap.median, p99: ap.p99 }, ratioP99: ap.p99 / st.p99, cletCpuMs: a.cletCpuMs };
    });
    r.apiMode = {
      pods: PODS, rounds: ROUNDS, perRound,
      api: { p50: medianOf(perRound.map((x) => x.api.p50)), p99: medianOf(perRound.map((x) => x.api.p99)) },
      static: { p50: medianOf(perRound.map((x) => x.static.p50)), p99: medianOf(perRound.map((x) => x.static.p99)) },
      ratioP99: medianOf(perRound.map((x) => x.ratioP99)),
      targets: { p99Ms: TARGET_P99_MS, ratioP99: TARGET_RATIO },
    };
    r.apiMode.met = { p99: r.apiMode.api.p99 <= TARGET_P99_MS, ratioP99: r.apiMode.ratioP99 <= TARGET_RATIO };
    console.log(`pod start, image present (${RUNS} runs of 1 pod; 1 run of ${PODS} pods), upstream SLO p99 <= 5000ms`);
    console.log(`  1 pod   clet:   median ${fmt(r.onePod.clet.median)}  p99 ${fmt(r.onePod.clet.p99)}`);
    console.log(`  1 pod   direct: median ${fmt(r.onePod.direct.median)}  p99 ${fmt(r.onePod.direct.p99)}   ratio (median) ${r.onePod.ratioMedian.toFixed(2)}x`);
    console.log(`  ${PODS} pods clet:   median ${fmt(r.manyPods.clet.median)}  p99 ${fmt(r.manyPods.clet.p99)}  all running ${fmt(manyMgr.total)}`);
    console.log(`  ${PODS} pods direct: median ${fmt(r.manyPods.direct.median)}  p99 ${fmt(r.manyPods.direct.p99)}  all running ${fmt(manyDirect.total)}   ratio (all running) ${r.manyPods.ratioAllRunning.toFixed(2)}x`);
    console.log(`${PODS} pods, API-server mode (POST -> watch sees Running) against static (manifest -> running in the manager), ${ROUNDS} alternating rounds:`);
    perRound.forEach((x, i) => console.log(`  round ${i}: api p50 ${fmt(x.api.p50)} p99 ${fmt(x.api.p99)}   static p50 ${fmt(x.static.p50)} p99 ${fmt(x.static.p99)}   ratio (p99) ${x.ratioP99.toFixed(2)}x   clet CPU ${x.cletCpuMs.toFixed(0)}ms`));
    const mark = (ok) => (ok ? 'met' : 'MISSED');
    console.log(`  median of rounds: api p50 ${fmt(r.apiMode.api.p50)}  p99 ${fmt(r.apiMode.api.p99)} (target <= ${TARGET_P99_MS}ms: ${mark(r.apiMode.met.p99)})   static p50 ${fmt(r.apiMode.static.p50)}  p99 ${fmt(r.apiMode.static.p99)}`);
    console.log(`  ratio api p99 / static p99: ${r.apiMode.ratioP99.toFixed(2)}x (target <= ${TARGET_RATIO}x: ${mark(r.apiMode.met.ratioP99)})`);
    if (manyMgr.profile) r.manyPods.profile = manyMgr.profile;
    if (PROFILE) r.apiMode.profile = apiRounds.map((a) => a.profile);
    console.log(JSON.stringify({ bench: 'pod-start', ...r }));
  } finally {
    await clet?.stop();
    if (api) {
      await api.stop();
    }
    await mgr?.stop();
    cri.close();
    await ctd.stop();
    removePodLogs(apiPodNames);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });
