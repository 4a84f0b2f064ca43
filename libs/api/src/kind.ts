// A kind as the API serves it: its group, version and names for discovery, and the one schema everything else
// reads (type, decoding, defaults, patch strategy, OpenAPI).
import type { Static, TObject } from '@sinclair/typebox';

export interface KindDefinition<S extends TObject = TObject> {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** The resource name in URLs (`configmaps`). */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Subresources served beside the main resource (`status`). */
  subresources: string[];
  verbs: string[];
  description: string;
  schema: S;
  /** Defaults that depend on other fields (beyond each field's own `default`), applied after decoding. */
  setDefaults?(object: Static<S>): void;
}

export type KindInput<S extends TObject> = Pick<KindDefinition<S>, 'group' | 'version' | 'kind' | 'plural' | 'namespaced' | 'schema' | 'description'> &
  Partial<Omit<KindDefinition<S>, 'group' | 'version' | 'kind' | 'plural' | 'namespaced' | 'schema' | 'description'>>;

/** Every verb of a plain resource, as kube-apiserver lists them in discovery. */
export const STANDARD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function defineKind<S extends TObject>(input: KindInput<S>): KindDefinition<S> {
  return {
    listKind: `${input.kind}List`,
    singular: input.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    subresources: [],
    verbs: STANDARD_VERBS,
    ...input,
  };
}

/** `v1` for the core group, `<group>/<version>` otherwise. */
export function apiVersionOf(def: Pick<KindDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** The name OpenAPI documents give a kind's schema, in upstream's reverse-domain form. */
export function definitionName(def: Pick<KindDefinition, 'group' | 'version' | 'kind'>): string {
  // Upstream names schemas after the Go package (k8s.io/api/rbac/v1 -> io.k8s.api.rbac.v1): the group's first label.
  if (def.group === '') return `io.k8s.api.core.${def.version}.${def.kind}`;
  if (def.group.endsWith('.k8s.io')) return `io.k8s.api.${def.group.split('.')[0]}.${def.version}.${def.kind}`;
  return `${def.group.split('.').reverse().join('.')}.${def.version}.${def.kind}`;
}
