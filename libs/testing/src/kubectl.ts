import { existsSync } from 'node:fs';

/** kubectl 1.33 exactly: the versioned binary beside the `kubectl` on PATH (override with KUBECTL). */
export const KUBECTL =
  process.env.KUBECTL ??
  ['/usr/lib/google-cloud-sdk/bin/kubectl.1.33', '/usr/local/bin/kubectl.1.33', '/usr/bin/kubectl.1.33'].find((p) => existsSync(p)) ??
  'kubectl';
