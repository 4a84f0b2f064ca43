// The admission chain (upstream's admission.Interface): plugins by name, in upstream's order, each mutating
// and/or validating a write before it is stored. Which plugins run is chosen by --enable-admission-plugins /
// --disable-admission-plugins; a plugin refuses a write by throwing an ApiError (403 Forbidden as upstream).
import type { GroupResource, KubeObject } from '@cl/apimachinery';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  resource: GroupResource;
  kind: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The object being written (null for DELETE). Mutating plugins change it in place. */
  object: KubeObject | null;
  /** The stored object (null for CREATE). */
  oldObject: KubeObject | null;
  dryRun: boolean;
  user?: unknown;
}

export interface AdmissionPlugin {
  name: string;
  mutate?(a: AdmissionAttributes): void | Promise<void>;
  validate?(a: AdmissionAttributes): void | Promise<void>;
}

export interface Admission {
  mutate(a: AdmissionAttributes): Promise<void> | void;
  validate(a: AdmissionAttributes): Promise<void> | void;
  /** The plugins that run, in order. */
  readonly names: string[];
}

/** Runs every mutating plugin in order, then every validating one. */
export function admissionChain(plugins: readonly AdmissionPlugin[]): Admission {
  const mutators = plugins.filter((p) => p.mutate);
  const validators = plugins.filter((p) => p.validate);
  return {
    names: plugins.map((p) => p.name),
    async mutate(a) {
      for (const p of mutators) await p.mutate!(a);
    },
    async validate(a) {
      for (const p of validators) await p.validate!(a);
    },
  };
}
