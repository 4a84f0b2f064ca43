#!/usr/bin/env node
// bench/api: the resource API against baselines measured in the same run (after `npx nx build apiserver`):
// - GET of one config map vs GET /livez (req/s over HTTPS keep-alive, alternating windows, median ratio);
// - create (POST with generateName) req/s vs the embedded store's raw put rate (SqliteStore.put in-process, the
//   same value size and concurrency);
// - LIST of 5,000 config maps, time to last byte, vs a bare node:https server sending the same bytes;
// - pods: creates per second, and the Table of 5,000 pods that `kubectl get pods` asks for vs a bare server;
// - watch fan-out: one write delivered to 1,000 watchers, time until each has it (p50/p99 over a few writes);
// - hostile clients: the GET load with 1,000 idle TLS connections and 50 slow-body clients vs without them, the
//   server's RSS before, with and after them, and when the server itself ends such clients (./hostile.js).
// Usage: node bench/api/run.js [--duration=2] [--rounds=4] [--watchers=1000] [--objects=5000] [--idle=1000]
//   [--slow=50] [--hostile-wait=100] [--only=hostile]
const https = require('node:https');
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { numberArg, startApiserver, compareAlternating, waitReady, median, cpuSeconds } = require('../lib/https-load');
const { hostileClients, formatHostile } = require('./hostile');

const DURATION = numberArg('duration', 2);
const ROUNDS = numberArg('rounds', 4);
const WATCHERS = numberArg('watchers', 1000);
const OBJECTS = numberArg('objects', 5000);
const CONNECTIONS = 10;
const ONLY = (process.argv.find((a) => a.startsWith('--only=')) ?? '').slice('--only='.length);
const HOSTILE = { idle: numberArg('idle', 1000), slow: numberArg('slow', 50), waitSeconds: numberArg('hostile-wait', 100) };
const DATA = { a: 'x'.repeat(200), b: 'y'.repeat(200) };

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

function request(base, method, path, body, agent, headers = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const req = https.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method, agent, rejectUnauthorized: false, headers: { ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

async function createMany(base, namespace, n, resource = 'configmaps', make = (name) => ({ metadata: { name }, data: DATA })) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const r = await request(base, 'POST', `/api/v1/namespaces/${namespace}/${resource}`, make(`o-${String(i).padStart(5, '0')}`), agent);
      if (r.status !== 201) throw new Error(`create: ${r.status} ${r.body}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
}

const POD = (name) => ({ metadata: name.endsWith('-') ? { generateName: name } : { name }, spec: { containers: [{ name: 'c', image: 'busybox:1.36', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] } });

/** Creates per second through the API for `seconds` (autocannon, generateName so every POST is new). */
async function createRate(base, seconds, resource = 'configmaps', body = { metadata: { generateName: 'c-' }, data: DATA }) {
  const r = await autocannon({
    url: `${base}/api/v1/namespaces/creates/${resource}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections: CONNECTIONS,
    duration: seconds,
  });
  if (r.non2xx) throw new Error(`creates: ${r.non2xx} non-2xx`);
  return r.requests.average;
}

/** Raw store puts per second: the embedded store in this process, same value size, same concurrency. */
async function rawPutRate(dir, seconds) {
  require('@swc-node/register');
  const { SqliteStore } = require('../../libs/store/src/index.ts');
  const store = new SqliteStore(join(dir, 'raw.db'));
  const value = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c-xxxxx', namespace: 'creates', uid: '00000000-0000-0000-0000-000000000000', creationTimestamp: '2026-01-01T00:00:00Z' }, data: DATA });
  let n = 0;
  const end = Date.now() + seconds * 1000;
  const worker = async (w) => {
    for (let i = 0; Date.now() < end; i++) {
      await store.put(`/configmaps/creates/w${w}-${i}`, value, { expectedRevision: 0 });
      n++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  await store.close();
  return n / seconds;
}

/** Median time to the last byte of GET `url` over `times` requests on a fresh keep-alive connection. */
async function timeToLastByte(url, times, headers = {}) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  const out = [];
  let bytes = 0;
  for (let i = 0; i < times; i++) {
    const t0 = process.hrtime.bigint();
    const r = await request(url, 'GET', new URL(url).pathname + new URL(url).search, undefined, agent, headers);
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
    bytes = r.body.length;
  }
  agent.destroy();
  return { ms: median(out.slice(2)), bytes };
}

/** `n` watchers on a namespace; resolves with a function that waits until all of them saw a line containing `marker`. */
async function openWatchers(base, namespace, n) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: Infinity });
  const watchers = [];
  await Promise.all(
    Array.from({ length: n }, () =>
      new Promise((resolve, reject) => {
        const w = { buf: '', waiting: null };
        const u = new URL(`/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=0&timeoutSeconds=600`, base);
        const req = https.get({ host: u.hostname, port: u.port, path: u.pathname + u.search, agent, rejectUnauthorized: false }, (res) => {
          res.setEncoding('utf8');
          res.on('data', (d) => {
            w.buf += d;
            if (w.waiting && w.buf.includes(w.waiting.marker)) {
              const done = w.waiting;
              w.waiting = null;
              done.resolve(process.hrtime.bigint());
            }
          });
          resolve();
        });
        req.on('error', reject);
        w.req = req;
        watchers.push(w);
      }),
    ),
  );
  return {
    expect(marker) {
      return watchers.map((w) => new Promise((resolve) => {
        if (w.buf.includes(marker)) return resolve(process.hrtime.bigint());
        w.waiting = { marker, resolve };
      }));
    },
    close() {
      for (const w of watchers) w.req.destroy();
      agent.destroy();
    },
  };
}

async function main() {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const dir = mkdtempSync(join(tmpdir(), 'cl-bench-api-'));
  let api;
  let raw;
  try {
    // No scheduler and no controllers: the 5,000 pods of the Table case have no node, and scheduling or collecting them is not what is measured.
    api = await startApiserver(dir, 'api', ['--enable-scheduler=false', '--controllers=serviceaccount']);
    const base = api.base;
    for (const ns of ['bench', 'list', 'creates', 'fan']) await request(base, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    await request(base, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'one' }, data: DATA });
    const hostileRow = () => hostileClients({ base, pid: api.pid, url: `${base}/api/v1/namespaces/bench/configmaps/one`, namespace: 'bench', rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, ...HOSTILE });
    if (ONLY === 'hostile') {
      const hostile = await hostileRow();
      console.log(formatHostile(hostile));
      console.log(JSON.stringify({ bench: 'api', hostile }));
      return;
    }

    // GET vs /livez.
    const get = await compareAlternating(
      [
        { name: '/livez', url: `${base}/livez`, pid: api.pid },
        { name: 'GET configmap', url: `${base}/api/v1/namespaces/bench/configmaps/one`, pid: api.pid },
      ],
      { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS },
    );

    // Creates vs raw puts, alternating.
    const createRatios = [];
    let creates = 0;
    let puts = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const c = await createRate(base, DURATION);
      const p = await rawPutRate(mkdtempSync(join(dir, 'raw-')), DURATION);
      creates += c / ROUNDS;
      puts += p / ROUNDS;
      createRatios.push(c / p);
    }

    // LIST of OBJECTS config maps vs the same bytes from a bare server.
    await createMany(base, 'list', OBJECTS);
    const listUrl = `${base}/api/v1/namespaces/list/configmaps`;
    const sample = await request(base, 'GET', '/api/v1/namespaces/list/configmaps');
    const bodyFile = join(dir, 'list.json');
    writeFileSync(bodyFile, sample.body);
    raw = spawn(process.execPath, [join(__dirname, 'raw-list-server.js'), `${api.certDir}/apiserver.crt`, `${api.certDir}/apiserver.key`, bodyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    const rawPort = await new Promise((resolve) => raw.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
    const rawUrl = `https://127.0.0.1:${rawPort}/`;
    await waitReady(rawUrl);
    const listRatios = [];
    let listMs = 0;
    let rawMs = 0;
    let bytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const a = await timeToLastByte(listUrl, 12);
      const b = await timeToLastByte(rawUrl, 12);
      listMs += a.ms / ROUNDS;
      rawMs += b.ms / ROUNDS;
      bytes = a.bytes;
      listRatios.push(a.ms / b.ms);
    }
    const pagedMs = (await timeToLastByte(`${listUrl}?limit=500`, 12)).ms;

    // Pods: creates per second, and the Table of 5,000 pods `kubectl get pods -A` asks for, vs a bare server.
    const podCreates = await createRate(base, DURATION * 2, 'pods', POD('p-'));
    await request(base, 'POST', '/api/v1/namespaces', { metadata: { name: 'podlist' } });
    await createMany(base, 'podlist', OBJECTS, 'pods', POD);
    const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json' };
    const podTablePath = '/api/v1/namespaces/podlist/pods';
    const podTableBody = join(dir, 'pods-table.json');
    writeFileSync(podTableBody, (await request(base, 'GET', podTablePath, undefined, undefined, TABLE)).body);
    const rawPods = spawn(process.execPath, [join(__dirname, 'raw-list-server.js'), `${api.certDir}/apiserver.crt`, `${api.certDir}/apiserver.key`, podTableBody], { stdio: ['ignore', 'pipe', 'inherit'] });
    const rawPodsPort = await new Promise((resolve) => rawPods.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
    await waitReady(`https://127.0.0.1:${rawPodsPort}/`);
    const podTableRatios = [];
    let podTableMs = 0;
    let rawPodTableMs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const a = await timeToLastByte(`${base}${podTablePath}`, 8, TABLE);
      const b = await timeToLastByte(`https://127.0.0.1:${rawPodsPort}/`, 8);
      podTableMs += a.ms / ROUNDS;
      rawPodTableMs += b.ms / ROUNDS;
      podTableRatios.push(a.ms / b.ms);
    }
    rawPods.kill();

    // Watch fan-out.
    const cpu0 = cpuSeconds(api.pid);
    const watchers = await openWatchers(base, 'fan', WATCHERS);
    const delivery = [];
    for (let i = 0; i < 5; i++) {
      const marker = `fan-${i}-${Date.now()}`;
      const seen = watchers.expect(marker);
      const t0 = process.hrtime.bigint();
      const r = await request(base, 'POST', '/api/v1/namespaces/fan/configmaps', { metadata: { name: marker }, data: DATA });
      if (r.status !== 201) throw new Error(`fan-out write: ${r.status}`);
      const times = await Promise.all(seen);
      delivery.push(...times.map((t) => Number(t - t0) / 1e6));
    }
    const fanCpu = cpuSeconds(api.pid) - cpu0;
    watchers.close();

    const hostile = await hostileRow();

    const result = {
      get: { rps: get.sums['GET configmap'].rps, livezRps: get.sums['/livez'].rps, ratio: get.medianRatio['GET configmap'], target: 0.5 },
      create: { rps: creates, rawPutsPerSecond: puts, ratio: median(createRatios), target: 0.3 },
      list: { objects: OBJECTS, bytes, ms: listMs, rawMs, ratio: median(listRatios), pagedBy500Ms: pagedMs, target: 2 },
      pods: { createsPerSecond: podCreates, tableOf: OBJECTS, tableMs: podTableMs, rawMs: rawPodTableMs, ratio: median(podTableRatios) },
      fanout: { watchers: WATCHERS, writes: 5, p50ms: pct(delivery, 0.5), p99ms: pct(delivery, 0.99), maxMs: Math.max(...delivery), serverCpuSeconds: fanCpu, targetP99ms: 100 },
      hostile,
    };
    console.log(`bench/api: HTTPS on 127.0.0.1, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION}s (median of per-round ratios)`);
    console.log(`GET one config map   ${result.get.rps.toFixed(0).padStart(8)} req/s   /livez ${result.get.livezRps.toFixed(0)} req/s   ratio ${result.get.ratio.toFixed(2)} (target >= 0.5)`);
    console.log(`create (POST)        ${result.create.rps.toFixed(0).padStart(8)} req/s   raw store puts ${result.create.rawPutsPerSecond.toFixed(0)}/s   ratio ${result.create.ratio.toFixed(2)} (target >= 0.3)`);
    console.log(`LIST ${OBJECTS} objects   ${result.list.ms.toFixed(1).padStart(8)} ms      raw server ${result.list.rawMs.toFixed(1)} ms (${(bytes / 1e6).toFixed(1)} MB)   ratio ${result.list.ratio.toFixed(2)} (target <= 2); first page of 500 ${pagedMs.toFixed(1)} ms`);
    console.log(`pods                 ${podCreates.toFixed(0).padStart(8)} creates/s   Table of ${OBJECTS} pods ${podTableMs.toFixed(1)} ms vs raw server ${rawPodTableMs.toFixed(1)} ms   ratio ${result.pods.ratio.toFixed(2)}`);
    console.log(`watch fan-out        ${WATCHERS} watchers: p50 ${result.fanout.p50ms.toFixed(1)} ms  p99 ${result.fanout.p99ms.toFixed(1)} ms  max ${result.fanout.maxMs.toFixed(1)} ms (target p99 < 100 ms)`);
    console.log(formatHostile(hostile));
    console.log(JSON.stringify({ bench: 'api', ...result }));
  } finally {
    raw?.kill();
    api?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
