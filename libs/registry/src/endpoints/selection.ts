// labelSelector and fieldSelector query values compiled into one predicate over objects. Field selectors name
// only the fields a kind supports (metadata.name, metadata.namespace and its Strategy's table); any other field
// is a 400 as upstream (`field label not supported: spec.foo`).
import { apiErrors, parseFieldSelector, parseLabelSelector, SelectorError, type KubeObject } from '@cl/apimachinery';
import type { Strategy } from '../strategy';

type Getter = (o: KubeObject) => string | undefined;

const META_FIELDS: Record<string, Getter> = {
  'metadata.name': (o) => o.metadata?.name,
  'metadata.namespace': (o) => o.metadata?.namespace ?? '',
};

/**
 * The value a field selector requires of the kind's watch index field (`spec.nodeName=node-1` for pods), if it
 * requires one: the watch is then indexed by it (WatchCacheOptions.indexOf). Called after selection() accepted it.
 */
export function watchIndexValue(strategy: Strategy, fieldSelector: string | null): string | undefined {
  const field = strategy.watchIndexField;
  if (!field || !fieldSelector) return undefined;
  return parseFieldSelector(fieldSelector).requirements.find((r) => r.field === field && r.operator === '=')?.value;
}

export function selection(strategy: Strategy, labelSelector: string | null, fieldSelector: string | null): ((o: KubeObject) => boolean) | undefined {
  const tests: Array<(o: KubeObject) => boolean> = [];
  try {
    if (labelSelector) {
      const sel = parseLabelSelector(labelSelector);
      if (!sel.empty) tests.push((o) => sel.matches(o.metadata?.labels));
    }
    if (fieldSelector) {
      const sel = parseFieldSelector(fieldSelector);
      const getters = { ...META_FIELDS, ...(strategy.fields as Record<string, Getter> | undefined) };
      for (const r of sel.requirements) if (!getters[r.field]) throw apiErrors.badRequest(`field label not supported: ${r.field}`);
      if (!sel.empty) tests.push((o) => sel.matches((field) => getters[field](o)));
    }
  } catch (e) {
    if (e instanceof SelectorError) throw apiErrors.badRequest(e.message);
    throw e;
  }
  if (tests.length === 0) return undefined;
  if (tests.length === 1) return tests[0];
  return (o) => tests.every((t) => t(o));
}
