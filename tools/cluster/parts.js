'use strict';
// What the launcher (up.js) runs, written down in <state-dir>/running.json, so that the same ordered stop can be
// done without it: by its guard when the launcher dies without stopping them (SIGKILL, a crash), or by the next
// start when the guard died too. The parts run in sessions of their own (a terminal's Ctrl-C must reach only the
// launcher), so nothing else would ever stop them.
//
//   node tools/cluster/parts.js STATE_DIR     stops what the record lists, once its launcher is gone
//
// A part is { kind: 'process', name, pid, start } (SIGTERM, then SIGKILL after 30 s), { kind: 'containerd', ...
// harness instance, start } (every task, the daemon, shims, mounts), or { kind: 'host-sandboxes', socket,
// nodeName, kubeconfig } (this node's pod sandboxes in the host's containerd, while the API server still answers).
// A pid counts only while its start time is the recorded one, so a reused pid is never signalled.
const fs = require('node:fs');
const path = require('node:path');

const RECORD = 'running.json';
const GRACE_MS = 30_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The start time of a live (not zombie) process, in clock ticks since boot; undefined when it is gone. */
function startTime(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

const alive = (p) => p.pid !== undefined && startTime(p.pid) === p.start;

/** The launcher's record: every part as it starts, gone after a complete stop. */
function partsRecord(stateDir) {
  const file = path.join(stateDir, RECORD);
  const record = { launcher: { pid: process.pid, start: startTime(process.pid) }, parts: [] };
  const write = () => fs.writeFileSync(file, JSON.stringify(record, null, 2));
  return {
    add(part) {
      record.parts.push(part.pid !== undefined ? { start: startTime(part.pid), ...part } : part);
      write();
    },
    remove: () => fs.rmSync(file, { force: true }),
  };
}

async function stopPart(part, log) {
  if (part.kind === 'process') {
    if (!alive(part)) return;
    log(`stopping ${part.name} (pid ${part.pid})`);
    process.kill(part.pid, 'SIGTERM');
    for (const t0 = Date.now(); alive(part) && Date.now() - t0 < GRACE_MS; ) await sleep(100);
    if (alive(part)) process.kill(part.pid, 'SIGKILL');
  } else if (part.kind === 'containerd') {
    log(`stopping containerd (pid ${part.pid}) with its containers`);
    const { stopContainerd } = require('../containerd/harness.js');
    await stopContainerd(part, { running: () => alive(part), signal: (sig) => alive(part) && process.kill(part.pid, sig) });
  } else if (part.kind === 'host-sandboxes') {
    const { readKubeconfig, request } = require('./admin-client.js');
    const { removePodSandboxes } = require('./host-containerd.js');
    const r = await request(readKubeconfig(part.kubeconfig), 'GET', `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${part.nodeName}`)}`);
    const uids = r.status === 200 ? JSON.parse(r.body).items.map((p) => p.metadata.uid) : [];
    log(`removing ${uids.length} pod sandboxes from ${part.socket}`);
    await removePodSandboxes(part.socket, uids);
  }
}

/**
 * Stops, in reverse order of start, what a launcher that is no longer running left recorded. Resolves
 * { stopped: true } when it did, { running: pid } when the recorded launcher still runs (its parts are looked
 * after), {} when there is no record.
 */
async function stopLeftovers(stateDir, log = () => undefined, opts = {}) {
  const file = path.join(stateDir, RECORD);
  let record;
  try {
    record = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
  // The guard wakes when the launcher's files close, which is a moment before the process itself is gone.
  for (const t0 = Date.now(); alive(record.launcher) && Date.now() - t0 < (opts.waitForLauncherMs ?? 0); ) await sleep(50);
  if (alive(record.launcher)) return { running: record.launcher.pid };
  for (const part of [...record.parts].reverse()) await stopPart(part, log).catch((e) => log(`stopping ${part.name ?? part.kind}: ${e.message}`));
  fs.rmSync(file, { force: true });
  return { stopped: true };
}

module.exports = { partsRecord, stopLeftovers, startTime };

if (require.main === module) {
  const log = (s) => process.stdout.write(`${new Date().toISOString()} ${s}\n`);
  stopLeftovers(path.resolve(process.argv[2]), log, { waitForLauncherMs: 5000 }).then(
    (r) => log(r.stopped ? 'the launcher had gone: stopped what it left running' : r.running ? `the launcher (pid ${r.running}) still runs` : 'nothing left to stop'),
    (e) => {
      log(`Error: ${e.stack ?? e}`);
      process.exitCode = 1;
    },
  );
}
