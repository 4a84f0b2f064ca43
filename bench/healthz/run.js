#!/usr/bin/env node
// bench/healthz: requests per second over HTTPS keep-alive for the API server's /livez and /readyz?verbose,
// against a raw node:https server answering "ok" in the same run. Prints a table and one JSON line.
// Usage: node bench/healthz/run.js [--duration=5] [--connections=10]   (after `npx nx build apiserver`)
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const net = require('node:net');
const autocannon = require('autocannon');

const arg = (name, def) => Number((process.argv.find((a) => a.startsWith(`--${name}=`)) ?? `=${def}`).split('=')[1]);
const DURATION = arg('duration', 5);
const CONNECTIONS = arg('connections', 10);
const MAIN = join(__dirname, '..', '..', 'apps', 'apiserver', 'dist', 'main.js');

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function waitReady(url) {
  for (let i = 0; i < 300; i++) {
    try {
      const r = await autocannon({ url, amount: 1, connections: 1 });
      if (r['2xx'] === 1) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never became ready`);
}

function load(url, duration = DURATION) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration, pipelining: 1 }, (err, r) => (err ? reject(err) : resolve(r)));
  });
}

async function main() {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const dir = mkdtempSync(join(tmpdir(), 'cl-bench-healthz-'));
  const port = await freePort();
  const api = spawn(process.execPath, [MAIN, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`], { stdio: 'ignore' });
  const base = `https://127.0.0.1:${port}`;
  let raw;
  try {
    await waitReady(`${base}/readyz`);
    raw = spawn(process.execPath, [join(__dirname, 'raw-server.js'), `${dir}/certs/apiserver.crt`, `${dir}/certs/apiserver.key`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const rawPort = await new Promise((resolve) => raw.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
    const rawUrl = `https://127.0.0.1:${rawPort}/`;
    await waitReady(rawUrl);

    const results = {};
    const targets = [
      ['raw node:https', rawUrl],
      ['/livez', `${base}/livez`],
      ['/readyz?verbose', `${base}/readyz?verbose`],
    ];
    // Warm every server up first (JIT, TLS session, caches), so each is measured in its steady state.
    for (const [, url] of targets) await load(url, 2);
    for (const [name, url] of targets) {
      const r = await load(url);
      if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      results[name] = { rps: r.requests.average, p50ms: r.latency.p50, p99ms: r.latency.p99 };
    }
    const rawRps = results['raw node:https'].rps;
    console.log(`bench/healthz: ${CONNECTIONS} keep-alive connections, ${DURATION}s each, HTTPS on 127.0.0.1`);
    console.log('endpoint             req/s     p50 ms  p99 ms  ratio to raw');
    for (const [name, r] of Object.entries(results)) {
      console.log(`${name.padEnd(20)} ${r.rps.toFixed(0).padStart(8)}  ${String(r.p50ms).padStart(6)}  ${String(r.p99ms).padStart(6)}  ${(r.rps / rawRps).toFixed(2)}`);
    }
    const livezRatio = results['/livez'].rps / rawRps;
    console.log(`target: /livez at 0.7 or more of the raw server -> ${livezRatio >= 0.7 ? 'met' : 'NOT met'} (${livezRatio.toFixed(2)})`);
    console.log(JSON.stringify({ bench: 'healthz', connections: CONNECTIONS, durationSeconds: DURATION, results, ratios: { livez: livezRatio, readyzVerbose: results['/readyz?verbose'].rps / rawRps } }));
  } finally {
    api.kill('SIGTERM');
    raw?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
