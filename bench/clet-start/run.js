// Start-up latency of the node agent: time from spawning `clet` to its health server answering
// GET /healthz with 200, against `node -e` starting a bare http server in the same run (the floor any Node
// process pays), in both modes: standalone, and API-server mode (--clconfig to the built API server, started
// once before the rounds and not counted). Needs a built clet and API server
// (`nx run-many -t build -p apiserver clet`); a private containerd is started for its CRI. Target: <= 3x.
//
//   node bench/clet-start/run.js [iterations]   (CLET_EXEC_ARGV='--cpu-prof --cpu-prof-dir=/tmp/p' profiles the clets)
const { spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { startContainerd } = require('../../tools/containerd/harness.js');
const { startApiserver } = require('../lib/https-load');

const ITERATIONS = Number(process.argv[2] ?? 10);
const TARGET_RATIO = 3;
const CLET_EXEC_ARGV = (process.env.CLET_EXEC_ARGV ?? '').split(' ').filter(Boolean);
const CLET = path.join(__dirname, '..', '..', 'apps', 'clet', 'dist', 'main.js');

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function healthy(port, pathName) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathName, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
  });
}

/** CPU time (user + system, ms) the process has used so far, from /proc (10 ms ticks). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * Spawns the command and returns the ms until GET <path> answers 200 (polled every 2 ms), and the CPU time the
 * process had used by then: the wall time moves with the machine's load, the CPU time far less.
 */
async function timeToHealthy(args, port, pathName) {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let exited = false;
  child.once('exit', () => (exited = true));
  while (!(await healthy(port, pathName))) {
    if (exited) throw new Error(`process exited before answering:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = cpuMs(child.pid);
  child.kill('SIGTERM');
  await new Promise((r) => (exited ? r() : child.once('exit', r)));
  return { ms, cpu };
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p90: q(0.9), min: s[0], max: s[s.length - 1] };
};

/** A kubeconfig for the API server that trusts its self-signed serving CA. */
function writeKubeconfig(dir, api) {
  const pems = readFileSync(path.join(api.certDir, 'apiserver.crt'), 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g);
  const file = path.join(dir, 'kubeconfig');
  writeFileSync(file, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.base}`,
    `    certificate-authority-data: ${Buffer.from(pems[pems.length - 1]).toString('base64')}`, 'users:', '- name: u', '  user: {}',
    'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  return file;
}

(async () => {
  const ctd = await startContainerd();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'clet-start-'));
  const modes = { standalone: [], api: [] };
  const bare = [];
  let api;
  try {
    api = await startApiserver(tmp, 'apiserver');
    const kubeconfig = writeKubeconfig(tmp, api);
    const cletArgs = async (extra) => {
      const [port, hz] = [await freePort(), await freePort()];
      return {
        hz,
        args: [
          CLET,
          '--fail-cgroupv1=false',
          '--fail-swap-on=false',
          `--root-dir=${tmp}/root`,
          `--cert-dir=${tmp}/pki`,
          `--container-runtime-endpoint=${ctd.endpoint}`,
          '--hostname-override=bench',
          '--address=127.0.0.1',
          `--port=${port}`,
          '--read-only-port=0',
          `--healthz-port=${hz}`,
          ...extra,
        ],
      };
    };
    // The first start makes the serving certificate; it is not counted.
    const first = await cletArgs([]);
    await timeToHealthy(first.args, first.hz, '/healthz');
    for (let i = 0; i < ITERATIONS; i++) {
      // Interleaved, so machine load affects all three the same way.
      const hp = await freePort();
      bare.push(
        await timeToHealthy(
          ['-e', `require('http').createServer((q, s) => s.end('ok')).listen(${hp}, '127.0.0.1')`],
          hp,
          '/healthz',
        ),
      );
      const order = i % 2 === 0 ? ['standalone', 'api'] : ['api', 'standalone'];
      for (const mode of order) {
        const { args, hz } = await cletArgs(mode === 'api' ? [`--clconfig=${kubeconfig}`] : []);
        modes[mode].push(await timeToHealthy([...CLET_EXEC_ARGV, ...args], hz, '/healthz'));
      }
    }
  } finally {
    if (api) {
      api.child.kill('SIGTERM');
      await new Promise((r) => (api.child.exitCode !== null ? r() : api.child.once('exit', r)));
    }
    await ctd.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const b = stats(bare.map((x) => x.ms));
  const bCpu = stats(bare.map((x) => x.cpu));
  const f = (x) => x.toFixed(1).padStart(7);
  const result = { bench: 'clet-start', iterations: ITERATIONS, baseline: { ...b, cpuMedian: bCpu.median }, targetRatio: TARGET_RATIO };
  for (const [mode, xs] of Object.entries(modes)) {
    const c = stats(xs.map((x) => x.ms));
    const cpu = stats(xs.map((x) => x.cpu));
    const ratio = c.median / b.median;
    const cpuRatio = cpu.median / bCpu.median;
    console.log(`clet ${mode.padEnd(10)} start to /healthz 200, ${ITERATIONS} runs (ms):  median ${f(c.median)}  p90 ${f(c.p90)}  min ${f(c.min)}  max ${f(c.max)}   ratio ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? 'met' : 'MISSED'})`);
    console.log(`     ${''.padEnd(10)} CPU time used by then (ms):  median ${f(cpu.median)}  min ${f(cpu.min)}  max ${f(cpu.max)}   ratio ${cpuRatio.toFixed(2)}x`);
    result[mode] = { ...c, ratio: Number(ratio.toFixed(3)), cpuMedian: cpu.median, cpuRatio: Number(cpuRatio.toFixed(3)) };
  }
  console.log(`bare node http server (baseline) (ms):               median ${f(b.median)}  p90 ${f(b.p90)}  min ${f(b.min)}  max ${f(b.max)}   CPU median ${f(bCpu.median)}`);
  console.log(JSON.stringify(result));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
