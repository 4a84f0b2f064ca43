'use strict';
// Builds the three OCI images the CRI tests need from Debian's static busybox, without any registry or
// docker: a one-layer rootfs (busybox + applet symlinks) written as an OCI image layout tarball that
// `ctr images import` understands. The tarballs are content-addressed and cached, so building is a
// one-time cost per machine.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const BUSYBOX = '/bin/busybox';
const TEST_IMAGE = 'docker.io/cl/busybox:test';
const PAUSE_IMAGE = 'docker.io/cl/pause:test';
// Same layer, its own config (so its own image ID): an image no pod uses, for image GC tests.
const UNUSED_IMAGE = 'docker.io/cl/unused:test';

// Applets linked into /bin; enough for shells, sleeps, a tiny web server and the usual test probes.
const APPLETS = ['sh', 'sleep', 'cat', 'echo', 'ls', 'env', 'pwd', 'id', 'true', 'false', 'kill', 'ps', 'httpd',
  'nc', 'wget', 'hostname', 'date', 'mkdir', 'touch', 'rm', 'test', 'head', 'tail', 'wc', 'grep', 'seq', 'yes', 'dd',
  'printf', 'ip', 'ifconfig', 'mount', 'stat', 'uname'];

function sha256(buf) {
  return 'sha256:' + crypto.createHash('sha256').update(buf).digest('hex');
}

function buildLayerTar(workDir) {
  const root = path.join(workDir, 'rootfs');
  fs.rmSync(root, { recursive: true, force: true });
  for (const d of ['bin', 'etc', 'tmp', 'proc', 'sys', 'dev', 'root', 'var/www']) fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.chmodSync(path.join(root, 'tmp'), 0o1777);
  fs.copyFileSync(BUSYBOX, path.join(root, 'bin/busybox'));
  fs.chmodSync(path.join(root, 'bin/busybox'), 0o755);
  for (const a of APPLETS) fs.symlinkSync('busybox', path.join(root, 'bin', a));
  fs.writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n');
  fs.writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
  const tarPath = path.join(workDir, 'layer.tar');
  // Fixed owners, order and times keep the digest stable across builds.
  execFileSync('tar', ['--sort=name', '--mtime=@0', '--owner=0', '--group=0', '--numeric-owner', '-C', root, '-cf', tarPath, '.']);
  return fs.readFileSync(tarPath);
}

function imageLayout(name, layer, cmd) {
  const layerDigest = sha256(layer);
  const config = Buffer.from(JSON.stringify({
    architecture: process.arch === 'x64' ? 'amd64' : process.arch,
    os: 'linux',
    config: { Env: ['PATH=/bin'], Cmd: cmd, WorkingDir: '/' },
    rootfs: { type: 'layers', diff_ids: [layerDigest] },
    history: [{ created: '1970-01-01T00:00:00Z', created_by: 'cl tools/containerd/images.js' }],
  }));
  const manifest = Buffer.from(JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha256(config), size: config.length },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigest, size: layer.length }],
  }));
  const index = Buffer.from(JSON.stringify({
    schemaVersion: 2,
    manifests: [{
      mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: sha256(manifest), size: manifest.length,
      annotations: { 'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': name.split(':').pop() },
    }],
  }));
  return { blobs: [layer, config, manifest], index };
}

function writeLayoutTar(workDir, outFile, layout) {
  const dir = path.join(workDir, 'layout-' + path.basename(outFile, '.tar'));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'blobs/sha256'), { recursive: true });
  for (const b of layout.blobs) fs.writeFileSync(path.join(dir, 'blobs/sha256', sha256(b).slice(7)), b);
  fs.writeFileSync(path.join(dir, 'index.json'), layout.index);
  fs.writeFileSync(path.join(dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
  const tmp = outFile + '.' + process.pid;
  execFileSync('tar', ['--sort=name', '--mtime=@0', '--owner=0', '--group=0', '--numeric-owner', '-C', dir, '-cf', tmp, '.']);
  fs.renameSync(tmp, outFile); // atomic: concurrent builders never see half a tarball
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Builds (once) the busybox, pause and unused image tarballs; returns their paths and image names. */
function buildTestImageTarballs(cacheDir = path.join(os.tmpdir(), 'cl-test-images')) {
  fs.mkdirSync(cacheDir, { recursive: true });
  const stamp = fs.statSync(BUSYBOX);
  const key = crypto.createHash('sha256').update(`${stamp.size}:${stamp.mtimeMs}:${APPLETS.join(',')}:v1`).digest('hex').slice(0, 16);
  const busyboxTar = path.join(cacheDir, `busybox-${key}.tar`);
  const pauseTar = path.join(cacheDir, `pause-${key}.tar`);
  const unusedTar = path.join(cacheDir, `unused-${key}.tar`);
  if (!fs.existsSync(busyboxTar) || !fs.existsSync(pauseTar) || !fs.existsSync(unusedTar)) {
    const work = fs.mkdtempSync(path.join(cacheDir, 'build-'));
    try {
      const layer = buildLayerTar(work);
      writeLayoutTar(work, busyboxTar, imageLayout(TEST_IMAGE, layer, ['sh']));
      // The pause process only has to hold the namespaces; the sandbox is stopped with SIGKILL.
      writeLayoutTar(work, pauseTar, imageLayout(PAUSE_IMAGE, layer, ['sleep', '2147483647']));
      writeLayoutTar(work, unusedTar, imageLayout(UNUSED_IMAGE, layer, ['true']));
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
  return { busyboxTar, pauseTar, unusedTar, busybox: TEST_IMAGE, pause: PAUSE_IMAGE, unused: UNUSED_IMAGE };
}

module.exports = { buildTestImageTarballs, TEST_IMAGE, PAUSE_IMAGE, UNUSED_IMAGE };
