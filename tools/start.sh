#!/usr/bin/env bash
# The README's main job: install what is missing, build the API server, and run it on embedded defaults
# (embedded store, self-signed certificates, state in ./.cl, an admin kubeconfig at .cl/admin.kubeconfig).
set -euo pipefail
cd "$(dirname "$0")/.."
CL_SKIP_APT=1 bash tools/setup.sh
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false NX_INTERACTIVE=false
npx nx build apiserver --output-style=static >/dev/null
exec node apps/apiserver/dist/up.js "$@"
