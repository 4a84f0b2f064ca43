// YAML to a JNode tree with the rules of sigs.k8s.io/yaml (go-yaml v2): YAML 1.1 scalars (`yes`/`on` are
// booleans, `0644` is octal), timestamps stay strings, keys become strings, a repeated key is reported
// (`line N: key "k" already set in map`) and the last value kept, and object keys come out sorted, as
// Go's json.Marshal of a map writes them.
import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';
import { byteCompare, type JNode } from './tree';

export class YamlSyntaxError extends Error {}

export interface YamlTree {
  root: JNode;
  /** `line N: key "k" already set in map`, in document order. */
  duplicateKeys: string[];
}

export function parseYamlTree(text: string): YamlTree {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, {
    version: '1.1',
    uniqueKeys: false,
    merge: true,
    intAsBigInt: true,
    lineCounter,
    // go-yaml v2 hands timestamps to interface{} targets as strings
    customTags: (tags) => tags.filter((t) => (typeof t === 'object' ? t.tag : '') !== 'tag:yaml.org,2002:timestamp'),
  });
  if (!Array.isArray(docs)) throw new YamlSyntaxError('yaml: unexpected document stream');
  const doc = docs[0];
  if (!doc) return { root: { t: 'null' }, duplicateKeys: [] };
  const err = doc.errors[0];
  if (err) {
    const line = err.linePos?.[0]?.line ?? 1;
    throw new YamlSyntaxError(`yaml: line ${line}: ${firstLine(err.message)}`);
  }

  const duplicateKeys: string[] = [];
  const seenMaps = new Set<unknown>();
  const findDuplicates = (n: unknown) => {
    if (!n || seenMaps.has(n)) return;
    seenMaps.add(n);
    if (isMap(n)) {
      const seen = new Set<string>();
      for (const pair of n.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (key !== '<<' && seen.has(key)) {
          const valueNode = pair.value as Node | null;
          const at = valueNode?.range?.[0] ?? (pair.key as Node | null)?.range?.[0] ?? 0;
          duplicateKeys.push(`line ${lineCounter.linePos(at).line}: key ${JSON.stringify(key)} already set in map`);
        }
        seen.add(key);
        findDuplicates(pair.value);
      }
    } else if (isSeq(n)) {
      for (const item of n.items) findDuplicates(item);
    }
  };
  findDuplicates(doc.contents);

  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new YamlSyntaxError(`yaml: ${(e as Error).message}`);
  }
  return { root: valueToNode(js, 0), duplicateKeys };
}

function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  // the yaml library appends its own position; the line is already in front, as go-yaml writes it
  return (nl < 0 ? s : s.slice(0, nl)).replace(/ at line \d+, column \d+:?$/, '');
}

function valueToNode(v: unknown, depth: number): JNode {
  if (depth > 1000) throw new YamlSyntaxError('yaml: exceeded max depth');
  if (v === null || v === undefined) return { t: 'null' };
  if (typeof v === 'string') return { t: 'string', v };
  if (typeof v === 'boolean') return { t: 'bool', v };
  if (typeof v === 'bigint') return { t: 'number', raw: v.toString() };
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new YamlSyntaxError(`json: unsupported value: ${v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN'}`);
    return { t: 'number', raw: String(v) };
  }
  if (Array.isArray(v)) return { t: 'array', items: v.map((x) => valueToNode(x, depth + 1)) };
  if (v instanceof Map) {
    const entries = [...v.entries()].map(([k, x]) => [String(k), valueToNode(x, depth + 1)] as [string, JNode]);
    return { t: 'object', entries: sortEntries(entries) };
  }
  if (v instanceof Uint8Array) return { t: 'string', v: Buffer.from(v).toString('base64') };
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).map(
      ([k, x]) => [k, valueToNode(x, depth + 1)] as [string, JNode],
    );
    return { t: 'object', entries: sortEntries(entries) };
  }
  return { t: 'string', v: String(v) };
}

function sortEntries(e: Array<[string, JNode]>): Array<[string, JNode]> {
  return e.sort((a, b) => byteCompare(a[0], b[0]));
}
