'use strict';
// A private containerd for tests and benchmarks: its own config, root, state, socket and CNI config under
// one temp dir, so several instances (and the host's own containerd, if any) never share state.
//
//   const { startContainerd, ensureTestImages } = require('../../tools/containerd/harness.js');
//   const ctd = await startContainerd();            // { socket, endpoint, dir, ctr(args), stop() }
//   const images = ensureTestImages(ctd.socket);    // { busybox, pause } image names, imported
//   ...
//   await ctd.stop();                               // kills every task and shim, unmounts, removes the dir
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawn, execFileSync } = require('node:child_process');
const { buildTestImageTarballs, TEST_IMAGE, PAUSE_IMAGE, UNUSED_IMAGE } = require('./images.js');

const CNI_BIN_DIR = fs.existsSync('/usr/lib/cni/bridge') ? '/usr/lib/cni' : '/opt/cni/bin';
const CRI_NAMESPACE = 'k8s.io';

function writeConfig(dir, id) {
  const cniConf = path.join(dir, 'cni/net.d');
  fs.mkdirSync(cniConf, { recursive: true });
  // A bridge per instance with a random /24 so parallel instances do not collide.
  const octet = 64 + crypto.randomInt(128);
  const bridge = `clbr${id.slice(0, 8)}`;
  fs.writeFileSync(path.join(cniConf, '10-cl.conflist'), JSON.stringify({
    cniVersion: '1.0.0', name: `cl-${id}`,
    plugins: [
      { type: 'bridge', bridge, isGateway: true, ipMasq: false, hairpinMode: true,
        ipam: { type: 'host-local', ranges: [[{ subnet: `10.${octet}.${crypto.randomInt(250)}.0/24` }]], dataDir: path.join(dir, 'cni/ipam') } },
      { type: 'loopback' },
    ],
  }, null, 2));
  const sock = path.join(dir, 'containerd.sock');
  const toml = `version = 2
root = "${dir}/root"
state = "${dir}/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "${sock}"
[ttrpc]
  address = "${sock}.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "${dir}/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  # This process lacks CAP_SYS_RESOURCE: without this runc fails to lower oom_score_adj for every sandbox.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${CNI_BIN_DIR}"
    conf_dir = "${cniConf}"
    max_conf_num = 1
`;
  const cfg = path.join(dir, 'config.toml');
  fs.writeFileSync(cfg, toml);
  return { cfg, sock };
}

function ctrSync(sock, args, opts = {}) {
  return execFileSync('ctr', ['--address', sock, '--namespace', CRI_NAMESPACE, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...opts }).toString();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function listNetns() {
  try { return new Set(fs.readdirSync('/var/run/netns')); } catch { return new Set(); }
}

function pidsMatching(needle) {
  const out = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (cmd.includes(needle)) out.push(Number(p));
    } catch { /* process gone */ }
  }
  return out;
}

function mountsUnder(prefix) {
  let lines = [];
  try { lines = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n'); } catch { return []; }
  return lines.map((l) => l.split(' ')[4]).filter((m) => m && (m === prefix || m.startsWith(prefix + '/')))
    .sort((a, b) => b.length - a.length);
}

/**
 * Starts a private containerd. Resolves once its socket answers. `opts.dir` reuses a directory (for
 * restart tests); otherwise a fresh temp dir is made and removed by stop(). `opts.detached` starts it in a
 * session of its own, out of the caller's process group: a terminal's Ctrl-C then reaches only the caller, which
 * stops it with its containers (it would otherwise die at once and leave them running). `opts.onSpawn(instance)`
 * is told what stopContainerd() needs to stop it from another process, as soon as the daemon runs.
 */
async function startContainerd(opts = {}) {
  const id = crypto.randomBytes(4).toString('hex');
  const dir = opts.dir || fs.mkdtempSync(path.join(os.tmpdir(), 'cl-ctd-'));
  const { cfg, sock } = writeConfig(dir, id);
  const netnsBefore = [...listNetns()];
  const logFile = path.join(dir, 'containerd.log');
  const logFd = fs.openSync(logFile, 'a');
  const child = spawn('containerd', ['--config', cfg], { stdio: ['ignore', logFd, logFd], detached: !!opts.detached });
  fs.closeSync(logFd);
  let exited = null;
  child.on('exit', (code, sig) => { exited = { code, sig }; });
  const instance = { pid: child.pid, dir, socket: sock, bridge: `clbr${id.slice(0, 8)}`, netnsBefore, keepDir: !!opts.keepDir };
  opts.onSpawn?.(instance);
  try {
    for (let i = 0; ; i++) {
      if (exited) throw new Error(`containerd exited (${JSON.stringify(exited)}); log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
      if (fs.existsSync(sock)) {
        try { ctrSync(sock, ['version']); break; } catch { /* not yet serving */ }
      }
      if (i > 600) throw new Error('containerd did not come up within 60s');
      await sleep(100);
    }
    // The CRI plugin loads after the socket opens; wait until it lists the namespace's plugins as ok.
    for (let i = 0; i < 300; i++) {
      const plugins = ctrSync(sock, ['plugins', 'ls']);
      if (/io\.containerd\.grpc\.v1\s+cri\s+\S+\s+ok/.test(plugins)) break;
      await sleep(100);
    }
  } catch (e) {
    // Detached, a daemon that never came up would outlive the caller.
    if (!exited) child.kill('SIGKILL');
    throw e;
  }

  const daemon = { running: () => !exited, signal: (sig) => child.kill(sig) };
  let stopping;
  return {
    socket: sock,
    endpoint: `unix://${sock}`,
    dir,
    logFile,
    instance,
    ctr: (args) => ctrSync(sock, args),
    /** Kills only the containerd daemon (shims and containers keep running), for restart tests. */
    kill: async () => {
      child.kill('SIGKILL');
      for (let i = 0; i < 100 && !exited; i++) await sleep(50);
    },
    stop: () => (stopping ??= stopContainerd(instance, daemon)),
  };
}

/**
 * Stops an instance: every task first (so shims exit by themselves), then the daemon, any shim left over, the
 * mounts under its dir, its network namespaces and bridge, and the dir unless kept. `daemon` says whether the
 * daemon still runs and signals it; by default by its pid, for a caller that did not start it (the launcher's
 * leftovers stop, which passes its own check of the pid's start time).
 */
async function stopContainerd(instance, daemon = pidDaemon(instance.pid)) {
  const { dir, socket: sock } = instance;
  try {
    const tasks = ctrSync(sock, ['tasks', 'ls', '-q']).split('\n').filter(Boolean);
    for (const t of tasks) { try { ctrSync(sock, ['tasks', 'kill', '-s', 'SIGKILL', t]); } catch { /* already gone */ } }
    if (tasks.length) await sleep(300);
  } catch { /* containerd already down */ }
  if (daemon.running()) {
    daemon.signal('SIGTERM');
    for (let i = 0; i < 100 && daemon.running(); i++) await sleep(100);
    if (daemon.running()) daemon.signal('SIGKILL');
  }
  for (const pid of pidsMatching(sock)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  for (const pid of pidsMatching(dir)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  await sleep(200);
  for (const m of mountsUnder(dir)) { try { execFileSync('umount', ['-l', m], { stdio: 'ignore' }); } catch { /* raced */ } }
  const netnsBefore = new Set(instance.netnsBefore);
  for (const ns of listNetns()) {
    if (netnsBefore.has(ns) || !ns.startsWith('cni-')) continue;
    const p = path.join('/var/run/netns', ns);
    try { execFileSync('umount', ['-l', p], { stdio: 'ignore' }); } catch { /* not mounted */ }
    try { fs.rmSync(p, { force: true }); } catch { /* raced */ }
  }
  try { execFileSync('ip', ['link', 'del', instance.bridge], { stdio: 'ignore' }); } catch { /* no bridge made */ }
  if (!instance.keepDir) fs.rmSync(dir, { recursive: true, force: true });
}

function pidDaemon(pid) {
  const running = () => {
    try {
      // A zombie has exited; it waits only for a parent to reap it.
      return !/^\S+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  return { running, signal: (sig) => { try { process.kill(pid, sig); } catch { /* gone */ } } };
}

/**
 * Builds (cached) and imports the busybox and pause images, and with `{ unused: true }` a third image
 * no pod uses (for image GC tests); returns their names. Importing again after a GC restores them.
 */
function ensureTestImages(socket, opts = {}) {
  const t = buildTestImageTarballs();
  const have = ctrSync(socket, ['images', 'ls', '-q']).split('\n');
  const wanted = [[t.busybox, t.busyboxTar], [t.pause, t.pauseTar]];
  if (opts.unused) wanted.push([t.unused, t.unusedTar]);
  for (const [name, tar] of wanted) {
    if (!have.includes(name)) ctrSync(socket, ['images', 'import', tar]);
  }
  return { busybox: TEST_IMAGE, pause: PAUSE_IMAGE, unused: UNUSED_IMAGE };
}

module.exports = { startContainerd, stopContainerd, ensureTestImages, ctrSync, TEST_IMAGE, PAUSE_IMAGE, UNUSED_IMAGE };

// `node tools/containerd/harness.js` starts one, imports the images and prints its endpoint until Ctrl-C.
if (require.main === module) {
  (async () => {
    // Its own session: a terminal's Ctrl-C must reach only this script, which stops containerd with its containers.
    const c = await startContainerd({ detached: true });
    ensureTestImages(c.socket);
    console.log(JSON.stringify({ endpoint: c.endpoint, dir: c.dir }));
    const bye = () => c.stop().then(() => process.exit(0));
    process.on('SIGINT', bye);
    process.on('SIGTERM', bye);
  })().catch((e) => { console.error(e); process.exit(1); });
}
