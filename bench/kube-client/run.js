#!/usr/bin/env node
// bench/kube-client: 1,000 watches in one process, @cl/kube-client against @kubernetes/client-node 1.4.0 (the
// baseline), each in its own child process, on the same built API server in the same run (after
// `npx nx run-many -t build -p apiserver kube-client`):
// - time until all watches are established (each has its initial ADDED events);
// - RSS and V8 heap used after establishing (after GC), and the process's own before any watch;
// - client CPU time per write fanned out to every watcher (a config map update each watcher must receive);
// - delivery latency of those writes (from the write being sent to a watcher's handler having it), p50/p99.
// Rounds alternate which client goes first; the median round of each is reported.
// Usage: node bench/kube-client/run.js [--watchers=1000] [--writes=20] [--rounds=2]
// (WATCHER_EXEC_ARGV='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the client processes.)
const https = require('node:https');
const { fork } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { numberArg, startApiserver, median } = require('../lib/https-load');

const WATCHERS = numberArg('watchers', 1000);
const WRITES = numberArg('writes', 20);
const ROUNDS = numberArg('rounds', 2);
const NAMESPACE = 'fan';
const CLIENTS = ['client-node', 'kube-client'];
const LABEL = { 'kube-client': '@cl/kube-client', 'client-node': '@kubernetes/client-node' };

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

function request(base, ca, method, path, body, contentType = 'application/json') {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const req = https.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method, ca, headers: body ? { 'Content-Type': contentType } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode < 300 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${method} ${path}: ${res.statusCode} ${Buffer.concat(chunks)}`))));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/** The serving CA (the last certificate of the self-signed chain) and a kubeconfig that trusts it. */
function writeKubeconfig(dir, base, certDir) {
  const pems = readFileSync(join(certDir, 'apiserver.crt'), 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g);
  const ca = pems[pems.length - 1];
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${base}`, `    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`, 'users:', '- name: u', '  user: {}', 'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  return { file, ca };
}

/** One client library's run: a child process with WATCHERS watches, then WRITES fanned-out updates. */
async function measure(which, base, ca, kubeconfig) {
  const child = fork(join(__dirname, 'watcher.js'), [which, kubeconfig, NAMESPACE, String(WATCHERS)], { execArgv: ['--expose-gc', ...(process.env.WATCHER_EXEC_ARGV ?? '').split(' ').filter(Boolean)], env: { ...process.env, INITIAL_OBJECTS: '2' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox = [];
  const waiters = [];
  child.on('message', (m) => (waiters.length ? waiters.shift()(m) : inbox.push(m)));
  const exited = new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`${which} watcher exited with ${code}`))));
  exited.catch(() => undefined);
  const next = () => Promise.race([new Promise((r) => (inbox.length ? r(inbox.shift()) : waiters.push(r))), exited]);
  try {
    const est = await next();
    child.send({ begin: true });
    await next();
    const latencies = [];
    for (let seq = 0; seq < WRITES; seq++) {
      const patch = { data: { seq: `${which}-${seq}`, at: String(process.hrtime.bigint()) } };
      await request(base, ca, 'PATCH', `/api/v1/namespaces/${NAMESPACE}/configmaps/target`, patch, 'application/merge-patch+json');
      const d = await next();
      if (d.delivered !== `${which}-${seq}`) throw new Error(`${which}: expected delivery of ${seq}, got ${JSON.stringify(d).slice(0, 200)}`);
      latencies.push(...d.ms);
    }
    child.send({ end: true });
    const { cpuMs } = await next();
    // It exits on its own (writing a profile, if asked for one).
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    return {
      establishMs: est.establishMs,
      rssMB: est.after.rssMB,
      heapUsedMB: est.after.heapUsedMB,
      bareRssMB: est.before.rssMB,
      bareHeapUsedMB: est.before.heapUsedMB,
      cpuMsPerWrite: cpuMs / WRITES,
      p50ms: pct(latencies, 0.5),
      p99ms: pct(latencies, 0.99),
      maxMs: Math.max(...latencies),
    };
  } finally {
    child.kill();
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'cl-bench-kube-client-'));
  let api;
  try {
    api = await startApiserver(dir, 'api');
    const { file: kubeconfig, ca } = writeKubeconfig(dir, api.base, api.certDir);
    await request(api.base, ca, 'POST', '/api/v1/namespaces', { metadata: { name: NAMESPACE } });
    for (const name of ['seed', 'target']) await request(api.base, ca, 'POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, { metadata: { name }, data: { v: 'x'.repeat(200) } });

    const runs = Object.fromEntries(CLIENTS.map((c) => [c, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const which of round % 2 === 0 ? CLIENTS : [...CLIENTS].reverse()) runs[which].push(await measure(which, api.base, ca, kubeconfig));
    }
    const keys = Object.keys(runs[CLIENTS[0]][0]);
    const result = Object.fromEntries(CLIENTS.map((c) => [c, Object.fromEntries(keys.map((k) => [k, median(runs[c].map((r) => r[k]))]))]));
    const ratio = Object.fromEntries(keys.map((k) => [k, result['kube-client'][k] / result['client-node'][k]]));

    const rows = [
      ['establishMs', `establish ${WATCHERS} watches`, 'ms', 0],
      ['rssMB', 'RSS after establishing', 'MB', 1],
      ['heapUsedMB', 'V8 heap used after', 'MB', 1],
      ['bareRssMB', 'RSS before any watch', 'MB', 1],
      ['cpuMsPerWrite', `client CPU per write (x${WATCHERS})`, 'ms', 1],
      ['p50ms', 'delivery p50', 'ms', 1],
      ['p99ms', 'delivery p99', 'ms', 1],
    ];
    console.log(`bench/kube-client: ${WATCHERS} watches on config maps in one process, ${WRITES} writes each delivered to all of them; median of ${ROUNDS} rounds`);
    console.log(`${''.padEnd(34)}${LABEL['kube-client'].padStart(18)}${LABEL['client-node'].padStart(26)}   ratio (lower is better)`);
    for (const [k, label, unit, digits] of rows) {
      const v = (c) => `${result[c][k].toFixed(digits)} ${unit}`;
      console.log(`${label.padEnd(34)}${v('kube-client').padStart(18)}${v('client-node').padStart(26)}   ${ratio[k].toFixed(2)}`);
    }
    console.log(JSON.stringify({ bench: 'kube-client', watchers: WATCHERS, writes: WRITES, rounds: ROUNDS, baseline: '@kubernetes/client-node@1.4.0', ...result, ratio }));
  } finally {
    api?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
