// NodeAffinity: spec.nodeSelector (every label must match) and the required node affinity, whose terms are ORed
// and whose expressions within a term are ANDed (component-helpers/scheduling/corev1/nodeaffinity). A term with
// nothing in it, or one that does not parse, matches no node; the pod then fits no node, as upstream.
import { parseLabelSelector, type LabelSelector } from '@cl/apimachinery';
import type { NodeInfo } from '../node-info';
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod } from '../types';

export const NODE_AFFINITY_REASON = "node(s) didn't match Pod's node affinity/selector";

/** A parsed term: a label selector for matchExpressions, the node names wanted or not for matchFields (ANDed). */
interface ParsedTerm {
  labels: LabelSelector | null;
  names: Array<{ equal: boolean; value: string }>;
}

/**
 * Each node selector operator as selector text, with the number of values it takes; the label selector parser then
 * checks keys, values and integers as labels.NewRequirement does. Label values cannot contain the syntax's
 * characters, so joining them is safe once the parser has accepted the result.
 */
const OPERATORS: Readonly<Record<string, { values: 'some' | 'none' | 'one'; text: (key: string, values: readonly string[]) => string }>> = {
  In: { values: 'some', text: (k, v) => `${k} in (${v.join(',')})` },
  NotIn: { values: 'some', text: (k, v) => `${k} notin (${v.join(',')})` },
  Exists: { values: 'none', text: (k) => k },
  DoesNotExist: { values: 'none', text: (k) => `!${k}` },
  Gt: { values: 'one', text: (k, v) => `${k}>${v[0]}` },
  Lt: { values: 'one', text: (k, v) => `${k}<${v[0]}` },
};

const COUNT_OK = { some: (n: number) => n > 0, none: (n: number) => n === 0, one: (n: number) => n === 1 } as const;

/** nodeSelectorRequirementsAsSelector, through the label selector parser. Throws for what upstream rejects. */
function labelSelectorOf(exprs: readonly NodeSelectorRequirement[]): LabelSelector {
  const parts = exprs.map((e) => {
    const op = OPERATORS[e.operator];
    const values = e.values ?? [];
    if (!op || !COUNT_OK[op.values](values.length)) throw new Error(`invalid node selector requirement on ${e.key}`);
    return op.text(e.key, values);
  });
  const selector = parseLabelSelector(parts.join(','));
  // A key or value that smuggled in selector syntax would parse into a different number of requirements.
  if (selector.requirements.length !== exprs.length) throw new Error('invalid node selector requirement');
  return selector;
}

/** matchFields (nodeSelectorRequirementsAsFieldSelector): only `metadata.name`, In or NotIn, exactly one value. */
function namesOf(fields: readonly NodeSelectorRequirement[]): ParsedTerm['names'] {
  return fields.map((f) => {
    if (f.key !== 'metadata.name' || (f.operator !== 'In' && f.operator !== 'NotIn') || (f.values ?? []).length !== 1) throw new Error('invalid node field selector');
    return { equal: f.operator === 'In', value: f.values![0] };
  });
}

function parseTerm(term: NodeSelectorTerm): ParsedTerm | null {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return null;
  try {
    return { labels: exprs.length ? labelSelectorOf(exprs) : null, names: namesOf(fields) };
  } catch {
    return null;
  }
}

// Parsed once per pod object: the filter runs for every node, and informer objects are replaced, not mutated.
const parsedTerms = new WeakMap<readonly NodeSelectorTerm[], Array<ParsedTerm | null>>();

function termsOf(terms: readonly NodeSelectorTerm[]): Array<ParsedTerm | null> {
  let parsed = parsedTerms.get(terms);
  if (!parsed) {
    parsed = terms.map(parseTerm);
    parsedTerms.set(terms, parsed);
  }
  return parsed;
}

function termMatches(term: ParsedTerm, node: Node): boolean {
  if (term.labels && !term.labels.matches(node.metadata.labels ?? {})) return false;
  // Upstream skips the field part for a node without a name (it has no fields to match).
  const name = node.metadata.name;
  return !name || term.names.every((n) => (name === n.value) === n.equal);
}

/** Whether any of the terms matches the node (a NodeSelector's Match). */
export function nodeSelectorTermsMatch(terms: readonly NodeSelectorTerm[], node: Node): boolean {
  return termsOf(terms).some((t) => t !== null && termMatches(t, node));
}

/** Whether the node satisfies the pod's nodeSelector and required node affinity (upstream's RequiredNodeAffinity). */
export function podMatchesNodeSelectorAndAffinity(pod: Pod, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return required ? nodeSelectorTermsMatch(required.nodeSelectorTerms ?? [], node) : true;
}

export function nodeAffinity(pod: Pod, nodeInfo: NodeInfo): string | null {
  return podMatchesNodeSelectorAndAffinity(pod, nodeInfo.node) ? null : NODE_AFFINITY_REASON;
}
