// Shared by the HTTPS benchmarks: start the built API server, load a URL with autocannon over keep-alive, and
// compare servers in alternating short windows. The machine is shared, so background load changes between
// windows far more than within one round; ratios are taken per round and the median is reported, next to the
// server CPU per request (from /proc), which barely moves with other load.
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const net = require('node:net');
const autocannon = require('autocannon');

const MAIN = join(__dirname, '..', '..', 'apps', 'apiserver', 'dist', 'main.js');

/** `--name=value` from the command line as a number, or the default. */
const numberArg = (name, def) => Number((process.argv.find((a) => a.startsWith(`--${name}=`)) ?? `=${def}`).split('=')[1]);

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

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function load(url, { duration, connections }) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, pipelining: 1 }, (err, r) => (err ? reject(err) : resolve(r)));
  });
}

/** The built API server on a free port with its own cert and data dirs under `dir/name`. */
async function startApiserver(dir, name, args = []) {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${dir}/${name}/certs`, `--data-dir=${dir}/${name}/data`, ...args], { stdio: 'ignore' });
  const base = `https://127.0.0.1:${port}`;
  await waitReady(`${base}/readyz`);
  return { child, base, pid: child.pid, certDir: `${dir}/${name}/certs` };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2;
};

/**
 * Measures `targets` ([{ name, url, pid }], the first is the baseline) in alternating windows after a warm-up.
 * `afterWarmup` runs between the warm-up and the measured rounds. Returns per-target averages, the per-round ratios to the baseline with their median, and CPU us per request.
 */
async function compareAlternating(targets, { rounds, duration, connections, warmup = 2, afterWarmup }) {
  for (const t of targets) await load(t.url, { duration: warmup, connections });
  afterWarmup?.();
  const sums = Object.fromEntries(targets.map((t) => [t.name, { rps: 0, p50ms: 0, p99ms: 0 }]));
  const cpu = Object.fromEntries(targets.map((t) => [t.name, { seconds: 0, requests: 0 }]));
  const ratios = Object.fromEntries(targets.slice(1).map((t) => [t.name, []]));
  for (let round = 0; round < rounds; round++) {
    const rps = {};
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) {
      const before = cpuSeconds(t.pid);
      const r = await load(t.url, { duration, connections });
      if (r.non2xx || r.errors) throw new Error(`${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      cpu[t.name].seconds += cpuSeconds(t.pid) - before;
      cpu[t.name].requests += r.requests.total;
      rps[t.name] = r.requests.average;
      sums[t.name].rps += r.requests.average / rounds;
      sums[t.name].p50ms += r.latency.p50 / rounds;
      sums[t.name].p99ms += r.latency.p99 / rounds;
    }
    for (const t of targets.slice(1)) ratios[t.name].push(rps[t.name] / rps[targets[0].name]);
  }
  const usPerRequest = Object.fromEntries(Object.entries(cpu).map(([n, c]) => [n, (c.seconds / c.requests) * 1e6]));
  const medianRatio = Object.fromEntries(Object.entries(ratios).map(([n, r]) => [n, median(r)]));
  return { sums, usPerRequest, ratios, medianRatio };
}

module.exports = { MAIN, numberArg, freePort, waitReady, cpuSeconds, load, startApiserver, compareAlternating, median };
