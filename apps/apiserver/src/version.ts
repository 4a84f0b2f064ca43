// /version as kube-apiserver serves it (version.Info), so `kubectl version` reads a 1.33 server.
import { execSync } from 'node:child_process';

const PRODUCT_VERSION = '0.1.0';
export const KUBE_VERSION = { major: '1', minor: '33', patch: '0' };

function gitCommit(): string {
  if (process.env.CL_GIT_COMMIT) return process.env.CL_GIT_COMMIT;
  try {
    return execSync('git rev-parse HEAD', { cwd: __dirname, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return '';
  }
}

let cached: Record<string, string> | undefined;

export function versionInfo(): Record<string, string> {
  cached ??= {
    major: KUBE_VERSION.major,
    minor: KUBE_VERSION.minor,
    emulationMajor: KUBE_VERSION.major,
    emulationMinor: KUBE_VERSION.minor,
    minCompatibilityMajor: KUBE_VERSION.major,
    minCompatibilityMinor: String(Number(KUBE_VERSION.minor) - 1),
    gitVersion: `v${KUBE_VERSION.major}.${KUBE_VERSION.minor}.${KUBE_VERSION.patch}+cl.${PRODUCT_VERSION}`,
    gitCommit: gitCommit(),
    gitTreeState: 'clean',
    buildDate: new Date(0).toISOString().replace(/\.\d+Z$/, 'Z'),
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
  return cached;
}
