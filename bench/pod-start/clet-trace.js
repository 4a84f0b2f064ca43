'use strict';
// --profile of the API-server mode: preloaded into the clet (`node --require clet-trace.js main.js ...`), it wraps
// the methods each step of a pod's start goes through and writes, at exit, one JSON line per step to
// $CLET_TRACE_FILE: { pod, step, start, end } in epoch ms (performance.timeOrigin-based, comparable across
// processes on one machine). The modules are the ones the clet itself loads (same resolved files).
const fs = require('node:fs');
const path = require('node:path');

const out = process.env.CLET_TRACE_FILE;
const marks = [];
const now = () => performance.timeOrigin + performance.now();
const mark = (pod, step, start, end = start, extra) => pod && marks.push({ pod, step, start, end, ...extra });
process.on('exit', () => fs.writeFileSync(out, marks.map((m) => JSON.stringify(m)).join('\n') + '\n'));

const dist = path.join(__dirname, '..', '..', 'apps', 'clet', 'dist');
const { CriClient } = require('@cl/cri');
const { NodeAgent } = require('@cl/node');
const { KubeClient } = require('@cl/kube-client');
const { CriPodManager = function () {} } = require(path.join(dist, 'pods', 'pod-manager.js'));

const wrapAsync = (proto, method, podOf, step = method, onResult) => {
  const orig = proto[method];
  proto[method] = async function (...args) {
    const t = now();
    const res = await orig.apply(this, args);
    const pod = podOf.call(this, args, res);
    mark(pod, step, t, now());
    onResult?.(args, res, pod);
    return res;
  };
};

// Informer delivery: the agent's handler for the watch event (first one per pod and each later one).
const agentChanged = NodeAgent.prototype.podChanged;
NodeAgent.prototype.podChanged = function (p) {
  mark(p.metadata.name, 'informer', now(), now(), { rv: p.metadata.resourceVersion, phase: p.status?.phase });
  return agentChanged.call(this, p);
};
// The agent hands the pod set to the pod manager (setImmediate-batched flush); the first time for each pod.
const uidToName = new Map();
// The sync loop takes the API pods where it lives in this build (@cl/node's PodSyncLoop, or the clet's manager).
const host = require('@cl/node').PodSyncLoop?.prototype ?? CriPodManager.prototype;
const setApi = host.setApiPods;
host.setApiPods = function (pods) {
  const t = now();
  const fresh = pods.filter((p) => !uidToName.has(p.metadata.uid));
  for (const p of fresh) uidToName.set(p.metadata.uid, p.metadata.name);
  const r = setApi.call(this, pods);
  for (const p of fresh) mark(p.metadata.name, 'setApiPods', t, now());
  return r;
};
// Each sync of a pod by its worker (the sync loop's, wherever it lives in this build).
const loop = require('@cl/node').PodSyncLoop?.prototype ?? CriPodManager.prototype;
if (typeof loop.syncOne === 'function') {
  const syncOne = loop.syncOne;
  loop.syncOne = async function (uid) {
    const name = uidToName.get(uid);
    const t = now();
    try { return await syncOne.call(this, uid); } finally { mark(name, 'syncOne', t, now()); }
  };
}
// Every CRI call, counted per method (pod '*').
for (const method of Object.getOwnPropertyNames(CriClient.prototype)) {
  if (method === 'constructor' || method === 'close' || typeof CriClient.prototype[method] !== 'function') continue;
  const orig = CriClient.prototype[method];
  CriClient.prototype[method] = function (...args) {
    const t = now();
    const r = orig.apply(this, args);
    if (r && typeof r.then === 'function') r.then(() => mark('*', `cri:${method}`, t, now()), () => mark('*', `cri:${method}`, t, now(), { failed: true }));
    return r;
  };
}
// CRI calls of a pod's start.
const idToPod = new Map();
wrapAsync(CriClient.prototype, 'runPodSandbox', (a) => a[0]?.metadata?.name, 'RunPodSandbox', (a, id) => idToPod.set(id, a[0]?.metadata?.name));
wrapAsync(CriClient.prototype, 'createContainer', (a) => a[2]?.metadata?.name, 'CreateContainer', (a, id) => idToPod.set(id, a[2]?.metadata?.name));
wrapAsync(CriClient.prototype, 'startContainer', (a) => idToPod.get(a[0]), 'StartContainer');
wrapAsync(CriClient.prototype, 'podSandboxStatus', (a) => idToPod.get(a[0]), 'PodSandboxStatus');
wrapAsync(CriClient.prototype, 'imageStatus', () => undefined, 'ImageStatus');
// The steps of a sync before its sandbox: the pod's runtime state read and the API volumes (tokens, configmaps).
const { PodRuntime } = require(path.join(dist, 'pods', 'pod-runtime.js'));
wrapAsync(PodRuntime.prototype, 'state', (a) => uidToName.get(a[0]), 'state');
const { ApiVolumeStep } = require(path.join(dist, 'volumes', 'volume-step.js'));
wrapAsync(ApiVolumeStep.prototype, 'setUp', (a) => a[0]?.metadata?.name, 'volumes');
// The runtime reports a status; the status manager writes it.
const report = NodeAgent.prototype.reportStatus;
NodeAgent.prototype.reportStatus = function (pod, status) {
  mark(pod.metadata.name, 'reportStatus', now(), now(), { phase: status.phase });
  return report.call(this, pod, status);
};
const origPatch = KubeClient.prototype.patch;
KubeClient.prototype.patch = async function (p, body, type) {
  const t = now();
  const m = /\/pods\/([^/]+)\/status$/.exec(p);
  const res = await origPatch.call(this, p, body, type);
  if (m) mark(m[1], 'statusPatch', t, now(), { phase: body?.status?.phase, ...(process.env.CLET_TRACE_BODIES ? { body } : {}) });
  return res;
};
