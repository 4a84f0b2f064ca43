#!/usr/bin/env node
// bench/healthz: requests per second over HTTPS keep-alive for the API server's /livez and /readyz?verbose,
// against a raw node:https server answering "ok" with the same certificate, in the same run (alternating
// windows, median of per-round ratios). Prints a table and one JSON line.
// Usage: node bench/healthz/run.js [--duration=2] [--connections=10] [--rounds=6]   (after `npx nx build apiserver`)
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { numberArg, waitReady, startApiserver, compareAlternating } = require('../lib/https-load');

const DURATION = numberArg('duration', 2);
const CONNECTIONS = numberArg('connections', 10);
const ROUNDS = numberArg('rounds', 6);

async function main() {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const dir = mkdtempSync(join(tmpdir(), 'cl-bench-healthz-'));
  let api;
  let raw;
  try {
    api = await startApiserver(dir, 'api');
    raw = spawn(process.execPath, [join(__dirname, 'raw-server.js'), `${api.certDir}/apiserver.crt`, `${api.certDir}/apiserver.key`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const rawPort = await new Promise((resolve) => raw.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
    const rawUrl = `https://127.0.0.1:${rawPort}/`;
    await waitReady(rawUrl);
    const targets = [
      { name: 'raw node:https', url: rawUrl, pid: raw.pid },
      { name: '/livez', url: `${api.base}/livez`, pid: api.pid },
      { name: '/readyz?verbose', url: `${api.base}/readyz?verbose`, pid: api.pid },
    ];
    const r = await compareAlternating(targets, { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS });
    console.log(`bench/healthz: ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${DURATION}s per endpoint, HTTPS on 127.0.0.1`);
    console.log('endpoint             req/s     p50 ms  p99 ms  server CPU us/req  ratio to raw (median of rounds)');
    for (const t of targets) {
      const s = r.sums[t.name];
      const ratio = r.medianRatio[t.name] ?? 1;
      console.log(`${t.name.padEnd(20)} ${s.rps.toFixed(0).padStart(8)}  ${s.p50ms.toFixed(1).padStart(6)}  ${s.p99ms.toFixed(1).padStart(6)}  ${r.usPerRequest[t.name].toFixed(1).padStart(16)}  ${ratio.toFixed(2)}`);
    }
    const livez = r.medianRatio['/livez'];
    console.log(`target: /livez at 0.7 or more of the raw server -> ${livez >= 0.7 ? 'met' : 'NOT met'} (${livez.toFixed(2)})`);
    console.log(JSON.stringify({ bench: 'healthz', connections: CONNECTIONS, durationSeconds: DURATION, rounds: ROUNDS, results: r.sums, usPerRequest: r.usPerRequest, ratios: r.medianRatio, roundRatios: r.ratios }));
  } finally {
    api?.child.kill('SIGTERM');
    raw?.kill('SIGTERM');
    await new Promise((res) => setTimeout(res, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
