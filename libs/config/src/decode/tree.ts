// A JSON value tree that remembers what strict decoding needs and JSON.parse forgets: repeated keys,
// number lexemes (int vs float, int64 precision) and, for JSON input, the source span of each value.

export type JNode =
  | { t: 'object'; entries: Array<[string, JNode]>; span?: Span }
  | { t: 'array'; items: JNode[]; span?: Span }
  | { t: 'string'; v: string; span?: Span }
  | { t: 'number'; raw: string; span?: Span }
  | { t: 'bool'; v: boolean; span?: Span }
  | { t: 'null'; span?: Span };

export type Span = [start: number, end: number];

/** Go's name for a JSON value kind in `json: cannot unmarshal <kind> into ...`. */
export function jsonKindName(n: JNode): string {
  switch (n.t) {
    case 'object':
      return 'object';
    case 'array':
      return 'array';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'bool':
      return 'bool';
    case 'null':
      return 'null';
  }
}

/** The plain JS value of a node (last duplicate wins, as Go does); whole numbers in int64 range become numbers. */
export function nodeToValue(n: JNode): unknown {
  switch (n.t) {
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const [k, v] of n.entries) o[k] = nodeToValue(v);
      return o;
    }
    case 'array':
      return n.items.map(nodeToValue);
    case 'string':
    case 'bool':
      return n.v;
    case 'number':
      return Number(n.raw);
    case 'null':
      return null;
  }
}

/** Compact JSON with keys sorted, the way Go re-marshals a YAML subtree. */
export function nodeToSortedJson(n: JNode): string {
  switch (n.t) {
    case 'object': {
      const last = new Map<string, JNode>();
      for (const [k, v] of n.entries) last.set(k, v);
      const keys = [...last.keys()].sort(byteCompare);
      return `{${keys.map((k) => `${JSON.stringify(k)}:${nodeToSortedJson(last.get(k)!)}`).join(',')}}`;
    }
    case 'array':
      return `[${n.items.map(nodeToSortedJson).join(',')}]`;
    case 'string':
      return JSON.stringify(n.v);
    case 'number':
      return n.raw;
    case 'bool':
      return String(n.v);
    case 'null':
      return 'null';
  }
}

export function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
