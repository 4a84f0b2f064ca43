#!/usr/bin/env bash
# The README's test command: set-up, then lint, typecheck and build every project, then every test suite
# (unit, integration against real peers, e2e against the built binaries).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false NX_INTERACTIVE=false CI=true NX_DEFAULT_OUTPUT_STYLE=static
npx nx run-many -t lint typecheck build
# Integration suites start real servers; one project at a time keeps the 2 cores from timing each other out.
npx nx run-many -t test --parallel=1 "$@"
