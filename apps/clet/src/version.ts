// The version the node agent reports (`--version`, node status). It follows the Kubernetes release whose
// behaviour it implements; `--version=vX.Y.Z-suffix` may change only what follows major.minor.patch.

export const DEFAULT_VERSION = 'v1.33.0';
/** Printed before the version, as upstream prints "Kubernetes v1.33.0" with its product name. */
export const PRODUCT_NAME = 'cl';

const SEMVER = /^v(\d+)\.(\d+)\.(\d+)(.*)$/;

/** Checks a `--version` value; returns it unchanged or throws upstream's message. */
export function checkVersionFlag(value: string): string {
  if (['true', 'false', 'raw'].includes(value)) return value;
  if (['1', 't', 'T', 'TRUE', 'True'].includes(value)) return 'true';
  if (['0', 'f', 'F', 'FALSE', 'False'].includes(value)) return 'false';
  const m = SEMVER.exec(value);
  const d = SEMVER.exec(DEFAULT_VERSION)!;
  if (!m) throw new Error(`could not parse "${value}" as version`);
  if (m[1] !== d[1] || m[2] !== d[2] || m[3] !== d[3]) {
    throw new Error(`version "${value}" must match major/minor/patch of default version "${DEFAULT_VERSION}"`);
  }
  return value;
}

export function rawVersion(gitVersion: string): string {
  const m = SEMVER.exec(gitVersion)!;
  const platform = `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`;
  return (
    `version.Info{Major:"${m[1]}", Minor:"${m[2]}", GitVersion:"${gitVersion}", GitCommit:"", GitTreeState:"", ` +
    `BuildDate:"", GoVersion:"node${process.versions.node}", Compiler:"tsc", Platform:"${platform}"}`
  );
}
