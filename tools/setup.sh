#!/usr/bin/env bash
# Everything a fresh machine needs before the control plane runs or its tests run: Debian packages for
# the real peers the tests start (containerd, runc, CNI plugins, etcd, tinyproxy and squid, busybox for the test
# image), and the npm dependencies. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# CL_PKGS=node (npm start's cluster) wants only what the node runs; the tests want every peer.
pairs="etcd:etcd-server containerd:containerd runc:runc tinyproxy:tinyproxy squid:squid busybox:busybox-static"
[ "${CL_PKGS:-}" = node ] && pairs="containerd:containerd runc:runc busybox:busybox-static"
need_pkgs=()
for pair in $pairs; do
  cmd=${pair%%:*} pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || [ -x "/usr/bin/$cmd" ] || need_pkgs+=("$pkg")
done
[ -x /usr/lib/cni/bridge ] || need_pkgs+=(containernetworking-plugins)
if [ "${#need_pkgs[@]}" -gt 0 ] && [ "${CL_SKIP_APT:-}" != 1 ]; then
  echo "setup: installing Debian packages: ${need_pkgs[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# npm ci, as CI systems and Dockerfiles run it, when node_modules is missing or older than the lock file: it
# installs exactly the lock and fails, rather than rewriting it, when package.json and the lock disagree (a
# change to dependencies must come with its lock). It builds better-sqlite3 from source when no prebuilt binary
# can be downloaded, which takes about a minute on two cores.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
