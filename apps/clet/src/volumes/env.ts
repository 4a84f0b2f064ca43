// Environment variables from API objects (upstream's makeEnvironmentVariables): `envFrom` secrets and config maps
// (each key, with the prefix, in list order; keys that are not valid variable names are skipped and reported),
// then `env` entries with `secretKeyRef`/`configMapKeyRef`. A missing object or key fails the container with
// CreateContainerConfigError unless the reference is optional.
import type { Container, Pod } from '../pods/api-types';
import type { ApiObjects } from './api-objects';
import { configMapData, secretData } from './payloads';

interface KeyRef {
  name?: string;
  key: string;
  optional?: boolean;
}
interface EnvFromSource {
  prefix?: string;
  secretRef?: { name?: string; optional?: boolean };
  configMapRef?: { name?: string; optional?: boolean };
}

/** What containerConfig adds to the container's environment. */
export interface ResolvedEnv {
  /** envFrom variables, in order; `env` entries come after and win. */
  fromSources: Array<[string, string]>;
  /** Values of `env` entries with a secretKeyRef/configMapKeyRef, by variable name (absent: optional and missing). */
  refs: Map<string, string>;
  /** Warnings to report as events (InvalidEnvironmentVariableNames). */
  warnings: Array<{ reason: string; message: string }>;
}

export const EMPTY_ENV: ResolvedEnv = { fromSources: [], refs: new Map(), warnings: [] };

// validation.IsEnvVarName: letters, digits, '_', '-', '.', not starting with a digit.
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export function usesApiObjects(c: Container): boolean {
  return Array.isArray(c.envFrom) && c.envFrom.length > 0 || (c.env ?? []).some((e) => e.valueFrom?.secretKeyRef || e.valueFrom?.configMapKeyRef);
}

export async function resolveEnv(api: ApiObjects | undefined, pod: Pod, c: Container): Promise<ResolvedEnv> {
  if (!usesApiObjects(c)) return EMPTY_ENV;
  if (!api) throw new Error('no API server connection: cannot read secrets or config maps for environment variables');
  const ns = pod.metadata.namespace ?? 'default';
  const out: ResolvedEnv = { fromSources: [], refs: new Map(), warnings: [] };
  for (const src of (c.envFrom ?? []) as EnvFromSource[]) {
    const isSecret = !!src.secretRef;
    const ref = src.secretRef ?? src.configMapRef;
    if (!ref) continue;
    const name = ref.name ?? '';
    const obj = isSecret ? await api.secret(ns, name) : await api.configMap(ns, name);
    if (!obj) {
      if (ref.optional) continue;
      throw new Error(`${isSecret ? 'secret' : 'configmap'} ${JSON.stringify(name)} not found`);
    }
    const data = isSecret ? secretData(obj) : configMapData(obj);
    const invalid: string[] = [];
    for (const [k, v] of [...data].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const key = (src.prefix ?? '') + k;
      if (!ENV_NAME.test(key)) {
        invalid.push(key);
        continue;
      }
      out.fromSources.push([key, v.toString('utf8')]);
    }
    if (invalid.length) {
      out.warnings.push({
        reason: 'InvalidEnvironmentVariableNames',
        message: `Keys [${invalid.join(', ')}] from the EnvFrom ${isSecret ? 'secret' : 'configMap'} ${ns}/${name} were skipped since they are considered invalid environment variable names.`,
      });
    }
  }
  for (const e of c.env ?? []) {
    const from = e.valueFrom as { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef } | undefined;
    const ref = from?.secretKeyRef ?? from?.configMapKeyRef;
    if (!ref) continue;
    const isSecret = !!from?.secretKeyRef;
    const name = ref.name ?? '';
    const obj = isSecret ? await api.secret(ns, name) : await api.configMap(ns, name);
    if (!obj) {
      if (ref.optional) continue;
      throw new Error(`${isSecret ? 'secret' : 'configmap'} ${JSON.stringify(name)} not found`);
    }
    const value = (isSecret ? secretData(obj) : configMapData(obj)).get(ref.key);
    if (value === undefined) {
      if (ref.optional) continue;
      throw new Error(`couldn't find key ${ref.key} in ${isSecret ? 'Secret' : 'ConfigMap'} ${ns}/${name}`);
    }
    out.refs.set(e.name, value.toString('utf8'));
  }
  return out;
}
