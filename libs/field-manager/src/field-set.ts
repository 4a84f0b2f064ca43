// A set of field paths as structured-merge-diff keeps it: a tree whose edges are path elements and whose nodes may
// themselves be members. Edges are named by their FieldsV1 keys (`f:name`, `k:{"name":"x"}`, `v:"a"`, `i:0`), so a
// set converts to and from the managedFields wire form without a second vocabulary, and two sets compare by key.

/** One path element in its FieldsV1 spelling. */
export type PathKey = string;

export class FieldSet {
  /** Whether the path that leads here is itself a member (FieldsV1's `.` for a node that also has children). */
  member = false;
  children: Map<PathKey, FieldSet> | null = null;

  static of(...paths: PathKey[][]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  get empty(): boolean {
    if (this.member) return false;
    if (this.children) for (const c of this.children.values()) if (!c.empty) return false;
    return true;
  }

  child(key: PathKey): FieldSet {
    this.children ??= new Map();
    let c = this.children.get(key);
    if (!c) this.children.set(key, (c = new FieldSet()));
    return c;
  }

  get(key: PathKey): FieldSet | undefined {
    return this.children?.get(key);
  }

  insert(path: readonly PathKey[]): void {
    let node = path.length ? this.child(path[0]) : this;
    for (let i = 1; i < path.length; i++) node = node.child(path[i]);
    node.member = true;
  }

  has(path: readonly PathKey[]): boolean {
    let node = path.length ? this.get(path[0]) : this;
    for (let i = 1; node && i < path.length; i++) node = node.get(path[i]);
    return !!node?.member;
  }

  /** Sets from the operations may share nodes with their operands: treat every set as immutable once built. */
  union(other: FieldSet): FieldSet {
    if (!other.member && !other.children?.size) return this;
    if (!this.member && !this.children?.size) return other;
    const out = new FieldSet();
    out.member = this.member || other.member;
    const keys = new Set([...(this.children?.keys() ?? []), ...(other.children?.keys() ?? [])]);
    for (const k of keys) {
      const a = this.get(k);
      const b = other.get(k);
      const c = a && b ? a.union(b) : (a ?? b)!.copy();
      if (!c.empty) (out.children ??= new Map()).set(k, c);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && other.member;
    if (this.children && other.children) {
      for (const [k, a] of this.children) {
        const b = other.children.get(k);
        if (!b) continue;
        const c = a.intersection(b);
        if (!c.empty) (out.children ??= new Map()).set(k, c);
      }
    }
    return out;
  }

  difference(other: FieldSet): FieldSet {
    if (!other.member && !other.children?.size) return this;
    const out = new FieldSet();
    out.member = this.member && !other.member;
    if (this.children) {
      for (const [k, a] of this.children) {
        const b = other.get(k);
        const c = b ? a.difference(b) : a.copy();
        if (!c.empty) (out.children ??= new Map()).set(k, c);
      }
    }
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    if (this.children) for (const [k, c] of this.children) if (!c.empty) (out.children ??= new Map()).set(k, c.copy());
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.member !== other.member) return false;
    const a = [...(this.children ?? [])].filter(([, c]) => !c.empty);
    const b = [...(other.children ?? [])].filter(([, c]) => !c.empty);
    if (a.length !== b.length) return false;
    for (const [k, c] of a) {
      const d = other.get(k);
      if (!d || !c.equals(d)) return false;
    }
    return true;
  }

  /** Every member path, in upstream's order (the order conflicts are reported in). */
  paths(): PathKey[][] {
    const out: PathKey[][] = [];
    const walk = (node: FieldSet, prefix: PathKey[]) => {
      if (node.member && prefix.length) out.push(prefix);
      if (node.children) for (const k of sortedKeys(node.children)) walk(node.children.get(k)!, [...prefix, k]);
    };
    walk(this, []);
    return out;
  }

  /** The FieldsV1 JSON object: children in upstream's order, `.` first where a member also has children. */
  toFieldsV1(): Record<string, unknown> {
    return emit(this, false);
  }

  /** A FieldsV1 object as a set; throws on anything that is not one. */
  static fromFieldsV1(v: unknown): FieldSet {
    const out = new FieldSet();
    read(v, out, true);
    return out;
  }
}

function emit(node: FieldSet, includeSelf: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const children = node.children ? sortedKeys(node.children).filter((k) => !node.children!.get(k)!.empty) : [];
  if (includeSelf && node.member && children.length) out['.'] = {};
  for (const k of children) out[k] = emit(node.children!.get(k)!, true);
  return out;
}

function read(v: unknown, into: FieldSet, root: boolean) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('FieldsV1 must be an object');
  const entries = Object.entries(v as Record<string, unknown>);
  if (!root && entries.length === 0) into.member = true;
  for (const [k, c] of entries) {
    if (k === '.') {
      if (root) throw new Error('the root of FieldsV1 cannot be a member');
      into.member = true;
      continue;
    }
    if (!/^[fkvi]:/.test(k)) throw new Error(`unexpected key ${JSON.stringify(k)} in FieldsV1`);
    read(c, into.child(k), false);
  }
}

// Upstream orders path elements by kind (field names, then keys, then values, then indexes), then within a kind:
// names as strings, keys field by field, values by their type and value, indexes as numbers.
const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

export function comparePathKeys(a: PathKey, b: PathKey): number {
  if (a === b) return 0;
  const ka = KIND_ORDER[a[0]] ?? 4;
  const kb = KIND_ORDER[b[0]] ?? 4;
  if (ka !== kb) return ka - kb;
  const ra = a.slice(2);
  const rb = b.slice(2);
  switch (a[0]) {
    case 'f':
      return ra < rb ? -1 : ra > rb ? 1 : 0;
    case 'i':
      return Number(ra) - Number(rb);
    case 'k':
      return compareFieldLists(JSON.parse(ra), JSON.parse(rb));
    default:
      return compareValues(JSON.parse(ra), JSON.parse(rb));
  }
}

function sortedKeys(m: Map<PathKey, FieldSet>): PathKey[] {
  return [...m.keys()].sort(comparePathKeys);
}

function compareFieldLists(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const ea = Object.entries(a).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  const eb = Object.entries(b).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  for (let i = 0; ; i++) {
    if (i >= ea.length || i >= eb.length) return ea.length - eb.length;
    if (ea[i][0] !== eb[i][0]) return ea[i][0] < eb[i][0] ? -1 : 1;
    const c = compareValues(ea[i][1], eb[i][1]);
    if (c) return c;
  }
}

// Numbers, then strings, then booleans, then lists, then maps, then null: upstream's total order of values.
function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ta = typeRank(a);
  const tb = typeRank(b);
  if (ta !== tb) return ta - tb;
  switch (ta) {
    case 0:
      return (a as number) - (b as number);
    case 1:
      return a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i], lb[i]);
        if (c) return c;
      }
      return la.length - lb.length;
    }
    case 4:
      return compareFieldLists(a as Record<string, unknown>, b as Record<string, unknown>);
    default:
      return 0;
  }
}

/** A path as upstream prints it in conflicts: `.spec.containers[name="x"].image`, `.metadata.finalizers[="a"]`. */
export function formatPath(path: readonly PathKey[]): string {
  let out = '';
  for (const k of path) {
    const rest = k.slice(2);
    switch (k[0]) {
      case 'f':
        out += '.' + rest;
        break;
      case 'i':
        out += `[${rest}]`;
        break;
      case 'v':
        out += `[=${valueString(JSON.parse(rest))}]`;
        break;
      case 'k': {
        const fields = Object.entries(JSON.parse(rest) as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
        out += `[${fields.map(([n, v]) => `${n}=${valueString(v)}`).join(',')}]`;
        break;
      }
    }
  }
  return out;
}

// As upstream's value.ToString: strings quoted, numbers and booleans bare, maps as key=value pairs.
function valueString(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  if (typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k}=${valueString(x)}`).join('');
  return String(v);
}

/** The FieldsV1 key of a field or map entry. */
export const fieldKey = (name: string): PathKey => `f:${name}`;
/** The FieldsV1 key of a set member. */
export const valueKey = (v: unknown): PathKey => `v:${JSON.stringify(v)}`;
/** The FieldsV1 key of an atomic list's item (never produced by the merge: such lists are owned whole). */
export const indexKey = (i: number): PathKey => `i:${i}`;
/** The FieldsV1 key of an associative list's item, from its key fields (sorted by name, as upstream). */
export function keyKey(fields: Record<string, unknown>): PathKey {
  const names = Object.keys(fields).sort();
  return `k:{${names.map((n) => `${JSON.stringify(n)}:${JSON.stringify(fields[n])}`).join(',')}}`;
}
