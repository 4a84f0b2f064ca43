'use strict';
// Probe cost: the agent's CPU per probe attempt, for exec probes (CRI ExecSync into a running busybox container on
// a private containerd) and httpGet probes (a busybox httpd on 127.0.0.1 in a host-network container), through the
// clet's probe handler, against the same calls made bare in the same run (cri.execSync, node:http GET). Upstream
// documents exec probes as the expensive kind: most of their cost is the runtime's, outside the agent, so the
// wall time per probe is printed too.
//
//   npx nx build clet && node bench/probes/index.js [--exec=200] [--http=1000]
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { startContainerd, ensureTestImages } = require('../../tools/containerd/harness.js');
const { CriClient } = require('@cl/cri');
const { runProbe } = require('../../apps/clet/dist/pods/probe-handlers.js');

const arg = (name, dflt) => Number((process.argv.find((a) => a.startsWith(`--${name}=`)) || '').split('=')[1] || dflt);
const EXEC = arg('exec', 200);
const HTTP = arg('http', 1000);

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** This process's CPU (user + system, ms) and wall time (ms) for `n` sequential runs of `fn`. */
async function measure(n, fn) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const cpu = process.cpuUsage(cpu0);
  return { cpuMsPerOp: (cpu.user + cpu.system) / 1000 / n, wallMsPerOp: (performance.now() - t0) / n };
}

function rawGet(port) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
}

async function main() {
  const ctd = await startContainerd();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-bench-probes-'));
  const cri = await CriClient.connect({ runtimeEndpoint: ctd.endpoint });
  let sandboxId;
  let id;
  try {
    const images = ensureTestImages(ctd.socket);
    const port = await freePort();
    fs.mkdirSync(path.join(tmp, 'logs', 'c'), { recursive: true });
    const sb = {
      metadata: { name: 'bench-probes', namespace: 'default', uid: `bench-probes-${Date.now()}`, attempt: 0 },
      logDirectory: path.join(tmp, 'logs'),
      linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } },
    };
    sandboxId = await cri.runPodSandbox(sb);
    id = await cri.createContainer(sandboxId, {
      metadata: { name: 'c', attempt: 0 }, image: { image: images.busybox }, logPath: 'c/0.log',
      command: ['sh', '-c', `mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p 127.0.0.1:${port} -h /www`],
    }, sb);
    await cri.startContainer(id);
    const target = { containerID: id, podIP: '127.0.0.1', ports: [] };
    for (let i = 0; i < 100 && !(await runProbe({ httpGet: { path: '/', port } }, target, cri)).success; i++) await new Promise((r) => setTimeout(r, 100));

    // Warm both paths, then measure each against its bare call.
    await measure(20, () => runProbe({ exec: { command: ['true'] } }, target, cri));
    await measure(100, () => runProbe({ httpGet: { path: '/', port } }, target, cri));
    const rows = {
      exec: await measure(EXEC, () => runProbe({ exec: { command: ['true'] } }, target, cri)),
      execRaw: await measure(EXEC, () => cri.execSync(id, ['true'], 1)),
      httpGet: await measure(HTTP, () => runProbe({ httpGet: { path: '/', port } }, target, cri)),
      httpRaw: await measure(HTTP, () => rawGet(port)),
    };
    console.log(`probe cost (agent CPU and wall time per attempt; ${EXEC} exec, ${HTTP} httpGet, sequential)`);
    console.log('kind                cpu ms/probe   wall ms/probe   cpu per 1,000 probes');
    for (const [name, r] of Object.entries(rows)) {
      console.log(`${name.padEnd(18)}  ${r.cpuMsPerOp.toFixed(3).padStart(12)}   ${r.wallMsPerOp.toFixed(3).padStart(13)}   ${(r.cpuMsPerOp).toFixed(2).padStart(8)} s`);
    }
    const ratios = { execCpuVsRaw: +(rows.exec.cpuMsPerOp / rows.execRaw.cpuMsPerOp).toFixed(2), httpCpuVsRaw: +(rows.httpGet.cpuMsPerOp / rows.httpRaw.cpuMsPerOp).toFixed(2) };
    console.log(`probe/bare CPU: exec ${ratios.execCpuVsRaw}, httpGet ${ratios.httpCpuVsRaw}`);
    console.log(JSON.stringify({ bench: 'probes', exec: EXEC, http: HTTP, rows, ratios }));
  } finally {
    if (id) await cri.stopContainer(id, 0).catch(() => undefined);
    if (sandboxId) await cri.stopPodSandbox(sandboxId).then(() => cri.removePodSandbox(sandboxId)).catch(() => undefined);
    cri.close();
    await ctd.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
