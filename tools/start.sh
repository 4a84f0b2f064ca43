#!/usr/bin/env bash
# The README's main job: install what is missing, build the API server and the node agent, and run a one-node
# cluster on embedded defaults (tools/cluster/up.js: embedded store, self-signed certificates, a private
# containerd, state in ./.cl, an admin kubeconfig at .cl/admin.kubeconfig). `--no-node` runs the control plane
# alone (no containerd needed, so no Debian packages are installed for it).
set -euo pipefail
cd "$(dirname "$0")/.."
no_node=0
for a in "$@"; do [ "$a" = --no-node ] && no_node=1; done
if [ "$no_node" = 1 ]; then
  CL_SKIP_APT=1 bash tools/setup.sh
else
  CL_PKGS=node bash tools/setup.sh
fi
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false NX_INTERACTIVE=false
npx nx run-many -t build -p apiserver clet --output-style=static >/dev/null
exec node tools/cluster/up.js "$@"
