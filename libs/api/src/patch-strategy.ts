// The strategic-merge-patch strategy of a list, read from a kind's schema: merged by a key (containers by name),
// merged as a set (finalizers), or replaced whole (everything else, as upstream treats lists with no tag).
import type { TSchema } from '@sinclair/typebox';
import type { KindDefinition } from './kind';

export type ListPatchStrategy = { type: 'merge'; key: string } | { type: 'set' } | { type: 'replace' };

/** The node of the schema at a path of field names (list items are passed through), or undefined if unknown. */
function nodeAt(schema: TSchema, path: readonly string[]): TSchema | undefined {
  let node: TSchema | undefined = schema;
  for (const field of path) {
    while (node && node.type === 'array') node = node.items as TSchema;
    if (!node) return undefined;
    if (node.anyOf) node = (node.anyOf as TSchema[]).find((a) => a.type === 'object');
    if (!node) return undefined;
    const props = node.properties as Record<string, TSchema> | undefined;
    const pattern = node.patternProperties as Record<string, TSchema> | undefined;
    node = props?.[field] ?? (pattern ? Object.values(pattern)[0] : undefined);
  }
  return node;
}

/** How strategic merge patch combines the list at `path` (e.g. ['metadata', 'finalizers']). */
export function patchStrategyAt(def: Pick<KindDefinition, 'schema'>, path: readonly string[]): ListPatchStrategy {
  const node = nodeAt(def.schema, path);
  // Upstream's strategies are comma-separated ("merge,retainKeys" for pod volumes); $retainKeys is a patch directive.
  if (!node || !String(node['x-kubernetes-patch-strategy'] ?? '').split(',').includes('merge')) return { type: 'replace' };
  const key = node['x-kubernetes-patch-merge-key'] as string | undefined;
  return key ? { type: 'merge', key } : { type: 'set' };
}
