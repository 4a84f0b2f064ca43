// Start-up latency of the node agent: time from spawning `clet` to its health server answering
// GET /healthz with 200, against `node -e` starting a bare http server in the same run (the floor any Node
// process pays). Needs a built clet (`nx build clet`); a private containerd is started for its CRI.
//
//   node bench/clet-start/run.js [iterations]
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { startContainerd } = require('../../tools/containerd/harness.js');

const ITERATIONS = Number(process.argv[2] ?? 10);
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

/** Spawns the command and returns the ms until GET <path> answers 200 (polled every 2 ms). */
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
  child.kill('SIGTERM');
  await new Promise((r) => (exited ? r() : child.once('exit', r)));
  return ms;
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p90: q(0.9), min: s[0], max: s[s.length - 1] };
};

(async () => {
  const ctd = await startContainerd();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'clet-start-'));
  const clet = [];
  const bare = [];
  try {
    for (let i = 0; i < ITERATIONS; i++) {
      // Interleaved, so machine load affects both the same way.
      const hp = await freePort();
      bare.push(
        await timeToHealthy(
          ['-e', `require('http').createServer((q, s) => s.end('ok')).listen(${hp}, '127.0.0.1')`],
          hp,
          '/healthz',
        ),
      );
      const [port, hz] = [await freePort(), await freePort()];
      clet.push(
        await timeToHealthy(
          [
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
          ],
          hz,
          '/healthz',
        ),
      );
    }
  } finally {
    await ctd.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const c = stats(clet);
  const b = stats(bare);
  const ratio = c.median / b.median;
  const f = (x) => x.toFixed(1).padStart(7);
  console.log(`clet start to /healthz 200, ${ITERATIONS} runs (ms):  median ${f(c.median)}  p90 ${f(c.p90)}  min ${f(c.min)}  max ${f(c.max)}`);
  console.log(`bare node http server (baseline) (ms):     median ${f(b.median)}  p90 ${f(b.p90)}  min ${f(b.min)}  max ${f(b.max)}`);
  console.log(`ratio (median clet / median baseline): ${ratio.toFixed(2)}x`);
  console.log(JSON.stringify({ bench: 'clet-start', iterations: ITERATIONS, clet: c, baseline: b, ratio: Number(ratio.toFixed(3)) }));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
