'use strict';
// The host's containerd for the one-node cluster, when one runs: used if its CRI answers and says the runtime and
// the network are ready (a containerd without a CNI configuration could not give pods an address, so the private
// one is the better choice then). The locally built images are imported into it (and the pause image tagged with
// the name the host's CRI config runs sandboxes from, when the host has no such image: there is no registry to
// pull it from). On the way out only what this cluster ran there is removed: the pod sandboxes of the pods bound
// to this node, found by their pod uid label; the host's own containers are never touched.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const DEFAULT_SOCKET = '/run/containerd/containerd.sock';
const POD_UID_LABEL = 'io.kubernetes.pod.uid';

function criClient(socket) {
  // Built with the apps (tools/start.sh builds them first).
  const { CriClient } = require(path.join(ROOT, 'libs/cri/dist/index.js'));
  return new CriClient({ runtimeEndpoint: `unix://${socket}`, timeoutMs: 5000 });
}

/**
 * { endpoint, socket, sandboxImage } when the host's containerd at `socket` can run this node's pods; otherwise
 * { reason } saying why not (no socket, no answer, not ready).
 */
async function probeHostContainerd(socket = DEFAULT_SOCKET) {
  if (!fs.existsSync(socket)) return { reason: `no containerd socket at ${socket}` };
  const cri = criClient(socket);
  try {
    const status = await cri.status(true);
    const notReady = (status.status?.conditions ?? []).filter((c) => (c.type === 'RuntimeReady' || c.type === 'NetworkReady') && !c.status).map((c) => `${c.type}: ${c.reason || 'false'} ${c.message || ''}`.trim());
    if (notReady.length) return { reason: `the containerd at ${socket} is not ready for pods (${notReady.join('; ')})` };
    let sandboxImage = '';
    try {
      sandboxImage = JSON.parse(status.info?.config ?? '{}').sandboxImage ?? '';
    } catch {
      // An info without the CRI config: the pause image is then whatever the host has.
    }
    return { endpoint: `unix://${socket}`, socket, sandboxImage };
  } catch (e) {
    return { reason: `the containerd at ${socket} does not answer CRI calls: ${e.message}` };
  } finally {
    cri.close();
  }
}

/** Imports the test images into the host's containerd and makes its sandbox image available. */
function prepareHostContainerd(host) {
  const { ctrSync, ensureTestImages, PAUSE_IMAGE } = require('../containerd/harness.js');
  ensureTestImages(host.socket);
  if (!host.sandboxImage || host.sandboxImage === PAUSE_IMAGE) return;
  if (!ctrSync(host.socket, ['images', 'ls', '-q']).split('\n').includes(host.sandboxImage)) ctrSync(host.socket, ['images', 'tag', PAUSE_IMAGE, host.sandboxImage]);
}

/** Stops and removes the sandboxes (with their containers) of the given pod uids; resolves with how many. */
async function removePodSandboxes(socket, podUids) {
  const wanted = new Set(podUids);
  const cri = criClient(socket);
  try {
    const mine = (await cri.listPodSandbox()).filter((s) => wanted.has(s.labels?.[POD_UID_LABEL]));
    for (const s of mine) {
      await cri.stopPodSandbox(s.id).catch(() => undefined);
      await cri.removePodSandbox(s.id).catch(() => undefined);
    }
    return mine.length;
  } finally {
    cri.close();
  }
}

module.exports = { probeHostContainerd, prepareHostContainerd, removePodSandboxes, DEFAULT_SOCKET, POD_UID_LABEL };
