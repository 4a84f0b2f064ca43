#!/usr/bin/env node
// bench/api/field-management: what field management costs on the write path, measured in one process (after
// `npx nx build apiserver`, which builds the libs): the REST handlers of @cl/registry over the embedded store,
// served on loopback HTTP, loaded with autocannon in alternating windows (median of the per-round ratios):
// - create (POST with generateName) req/s with managedFields recorded vs the same server with field management
//   turned off (ResourceStoreOptions.fieldManagement: false, which only this bench sets);
// - server-side apply of an existing config map, unchanged and with one field changed each request, vs a
//   strategic-merge patch of the same change (one connection: one object's writers would measure retries).
// Usage: node bench/api/field-management.js [--duration=2] [--rounds=4]
const http = require('node:http');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { numberArg, median } = require('../lib/https-load');
const { configMap } = require('@cl/api');
const { SqliteStore } = require('@cl/store');
const { ResourceApi, ResourceStore, builtinKinds } = require('@cl/registry');

const DURATION = numberArg('duration', 2);
const ROUNDS = numberArg('rounds', 4);
const CONNECTIONS = 10;
const DATA = { a: 'x'.repeat(200), b: 'y'.repeat(200) };

function infoOf(method, url) {
  const parts = url.split('?')[0].split('/');
  const [, , , , namespace, resource, name] = parts;
  const verb = method === 'POST' ? 'create' : method === 'PATCH' ? 'patch' : method === 'PUT' ? 'update' : name ? 'get' : 'list';
  return { verb, apiGroup: '', apiVersion: 'v1', resource, namespace, name: name ?? '', subresource: '' };
}

async function serve(dir, fieldManagement) {
  const store = new SqliteStore(join(dir, `${fieldManagement}.db`));
  const strategy = builtinKinds({ eventTtlSeconds: 60 }).find((k) => k.def === configMap).strategy;
  const cms = new ResourceStore(configMap, store, strategy, { fieldManagement });
  await cms.start();
  const readBody = (req) =>
    new Promise((resolve) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });
  const api = new ResourceApi([cms], { readBody });
  const server = http.createServer((req, res) => void api.handle(req, res, infoOf(req.method, req.url)));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { base, close: async () => (server.closeAllConnections(), server.close(), cms.stop(), await store.close()) };
}

function send(url, method, body, type, want) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { 'content-type': type } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => (res.statusCode === want ? resolve(text) : reject(new Error(`${method} ${url}: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const run = (opts) => new Promise((resolve, reject) => autocannon({ connections: CONNECTIONS, duration: DURATION, pipelining: 1, ...opts }, (e, r) => (e ? reject(e) : resolve(r))));

/** Alternating windows of each target ({ name, opts }); the first is the baseline. */
async function compare(targets) {
  for (const t of targets) await run({ ...t.opts(), duration: 1 });
  const rps = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of round % 2 ? [...targets].reverse() : targets) {
      const r = await run(t.opts());
      if (r.non2xx || r.errors) throw new Error(`${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      rps[t.name].push(r.requests.average);
    }
  }
  const base = rps[targets[0].name];
  return targets.map((t) => ({ name: t.name, rps: median(rps[t.name]), ratio: median(rps[t.name].map((x, i) => x / base[i])) }));
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'cl-bench-fm-'));
  const on = await serve(dir, true);
  const off = await serve(dir, false);
  try {
    const create = (base) => () => ({ url: `${base}/api/v1/namespaces/bench/configmaps`, method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'bench/1' }, body: JSON.stringify({ metadata: { generateName: 'c-', labels: { app: 'bench' } }, data: DATA }) });
    const creates = await compare([
      { name: 'create, field management off', opts: create(off.base) },
      { name: 'create, managedFields recorded', opts: create(on.base) },
    ]);

    // One object, first applied (so its fields have an Apply owner), then changed by each request.
    const target = `${on.base}/api/v1/namespaces/bench/configmaps/applied`;
    const config = (v) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', labels: { app: 'bench' } }, data: { ...DATA, v } });
    await send(`${target}?fieldManager=bench`, 'PATCH', config('0'), 'application/apply-patch+yaml', 201);
    let n = 0;
    // One connection: writers of one object would otherwise measure optimistic-concurrency retries. Applies force,
    // since each patch takes the field over as an update.
    const changing = (type, body) => () => ({
      url: `${target}?fieldManager=bench${type.includes('apply') ? '&force=true' : ''}`,
      connections: 1,
      method: 'PATCH',
      headers: { 'content-type': type },
      setupClient: (client) => client.setBody(body(String(++n))),
      requests: [{ setupRequest: (req) => ({ ...req, body: body(String(++n)) }) }],
    });
    const applies = await compare([
      { name: 'strategic-merge patch, one field changed', opts: changing('application/strategic-merge-patch+json', (v) => JSON.stringify({ data: { v } })) },
      { name: 'apply, one field changed', opts: changing('application/apply-patch+yaml', config) },
      { name: 'strategic-merge patch, no change', opts: () => ({ url: `${target}?fieldManager=bench`, connections: 1, method: 'PATCH', headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: JSON.stringify({ data: { v: 'same' } }) }) },
      { name: 'apply, no change', opts: () => ({ url: `${target}?fieldManager=bench&force=true`, connections: 1, method: 'PATCH', headers: { 'content-type': 'application/apply-patch+yaml' }, body: config('same') }) },
    ]);
    console.log('field management (in-process REST handlers, embedded store, loopback HTTP, %d connections, %d x %ds windows)', CONNECTIONS, ROUNDS, DURATION);
    for (const r of [...creates, ...applies]) console.log(`  ${r.name.padEnd(42)} ${r.rps.toFixed(0).padStart(6)} req/s  ${r.ratio.toFixed(2)}x of its baseline`);
    const smp = applies[0].rps;
    console.log(`  create cost of managedFields: ${((1 - creates[1].ratio) * 100).toFixed(1)}% (target <= 15%)`);
    console.log(`  apply / patch cost, one field changed: ${(smp / applies[1].rps).toFixed(2)}x (target <= 2x); no change: ${(applies[2].rps / applies[3].rps).toFixed(2)}x`);
  } finally {
    await on.close();
    await off.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
