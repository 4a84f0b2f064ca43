// A fast path for reading a kubeconfig: the plain shapes tools write (block mappings and sequences, one-line
// flow mappings and sequences, plain, single- and double-quoted one-line scalars, whole-line comments) read
// without the `yaml` library. Why: the library's first parse in a process costs ~20-50 ms of compiling its
// parser, on the node agent's start path before /healthz answers (bench/clet-start). Anything outside these
// shapes (anchors, tags, block scalars, multi-line or escaped scalars, numbers other than plain integers,
// duplicate keys, tabs, CRLF, inline comments, ...) returns undefined, and the caller parses the text with the
// library as before: the fast path gives exactly the library's result or no result, never another one
// (kubeconfig-yaml.spec.ts compares the two over a table of documents).

class NotSimple extends Error {}

const fallback = (): never => {
  throw new NotSimple();
};

/** A key the library would read as the same string (not null, a boolean or a number), new in its mapping. */
function checkKey(out: object, key: string): string {
  if (key === '__proto__' || key.length > 1000 || /^[0-9]/.test(key) || typeof plain(key, true) !== 'string') return fallback();
  if (Object.prototype.hasOwnProperty.call(out, key)) return fallback();
  return key;
}

interface Line {
  indent: number;
  text: string;
}

// A mapping entry on a line: `key:` alone or `key: value`.
const ENTRY = /^([A-Za-z0-9_][A-Za-z0-9_./-]*):(?: +(.*))?$/;
// Plain scalars kept to characters with no YAML meaning here; the first one is never an indicator, a sign or a dot.
const PLAIN_BLOCK = /^[A-Za-z0-9_/][A-Za-z0-9_./+=@~:, -]*$/;
const PLAIN_FLOW = /^[A-Za-z0-9_/][A-Za-z0-9_./+=@~ -]*$/;

/** A plain scalar as the YAML 1.2 core schema the library uses resolves it, or NotSimple. */
function plain(s: string, flow: boolean): unknown {
  if (!(flow ? PLAIN_FLOW : PLAIN_BLOCK).test(s) || s.includes(': ') || s.includes(' :') || s.endsWith(':')) return fallback();
  if (s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  if (/^[0-9]/.test(s)) {
    // Plain integers only; floats, octal, hex and leading zeros go to the library.
    if (!/^[1-9][0-9]*$|^0$/.test(s) || !Number.isSafeInteger(Number(s))) return fallback();
    return Number(s);
  }
  return s;
}

/** A quoted scalar starting at s[i]: its value and the index after the closing quote. */
function quoted(s: string, i: number): [string, number] {
  const q = s[i];
  let out = '';
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (q === '"' && c === '\\') return fallback();
    if (c !== q) {
      out += c;
      continue;
    }
    if (q === "'" && s[j + 1] === "'") {
      out += "'";
      j++;
      continue;
    }
    return [out, j + 1];
  }
  return fallback();
}

const skipSpaces = (s: string, i: number) => {
  while (s[i] === ' ') i++;
  return i;
};

/** A flow value starting at s[i] (after spaces): the value and the index after it. */
function flowValue(s: string, i: number): [unknown, number] {
  i = skipSpaces(s, i);
  const c = s[i];
  if (c === '"' || c === "'") return quoted(s, i);
  if (c === '{' || c === '[') {
    const map = c === '{';
    const out: Record<string, unknown> | unknown[] = map ? {} : [];
    i = skipSpaces(s, i + 1);
    if (s[i] === (map ? '}' : ']')) return [out, i + 1];
    for (;;) {
      if (map) {
        const m = /^([A-Za-z0-9_][A-Za-z0-9_./-]*): /.exec(s.slice(i));
        if (!m) return fallback();
        const key = checkKey(out, m[1]);
        const [v, next] = flowValue(s, i + m[0].length);
        (out as Record<string, unknown>)[key] = v;
        i = next;
      } else {
        const [v, next] = flowValue(s, i);
        (out as unknown[]).push(v);
        i = next;
      }
      i = skipSpaces(s, i);
      if (s[i] === ',') {
        i = skipSpaces(s, i + 1);
        // A trailing comma, or a flow collection spanning lines: the library's.
        if (s[i] === '}' || s[i] === ']' || i >= s.length) return fallback();
        continue;
      }
      if (s[i] === (map ? '}' : ']')) return [out, i + 1];
      return fallback();
    }
  }
  let end = i;
  while (end < s.length && !',[]{}'.includes(s[end])) end++;
  return [plain(s.slice(i, end).trimEnd(), true), end];
}

/** The value written after `key: ` or `- ` on one line. */
function inlineValue(rest: string): unknown {
  const c = rest[0];
  if (c === '{' || c === '[' || c === '"' || c === "'") {
    const [v, end] = c === '{' || c === '[' ? flowValue(rest, 0) : quoted(rest, 0);
    if (rest.slice(end).trim() !== '') return fallback();
    return v;
  }
  return plain(rest, false);
}

class BlockParser {
  private pos = 0;

  constructor(private readonly lines: Line[]) {}

  parseDocument(): unknown {
    if (this.lines.length === 0 || this.lines[0].indent !== 0) return fallback();
    const v = this.node(0);
    if (this.pos !== this.lines.length) return fallback();
    return v;
  }

  private isItem(text: string): boolean {
    return text === '-' || text.startsWith('- ');
  }

  private node(indent: number): unknown {
    return this.isItem(this.lines[this.pos].text) ? this.sequence(indent) : this.mapping(indent);
  }

  /** What follows a `key:` or `-` with nothing after it on its line. */
  private nested(indent: number, sequenceAtSameIndent: boolean): unknown {
    const next = this.lines[this.pos];
    if (next && next.indent > indent) return this.node(next.indent);
    if (next && sequenceAtSameIndent && next.indent === indent && this.isItem(next.text)) return this.sequence(indent);
    return null;
  }

  /** After a value written on its line, a deeper line would continue it (a multi-line scalar): the library's. */
  private noDeeper(indent: number): void {
    const next = this.lines[this.pos];
    if (next && next.indent > indent) fallback();
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos];
      if (line.indent !== indent || this.isItem(line.text)) break;
      const m = ENTRY.exec(line.text);
      if (!m) return fallback();
      const key = checkKey(out, m[1]);
      this.pos++;
      if (m[2] === undefined || m[2] === '') out[key] = this.nested(indent, true);
      else {
        out[key] = inlineValue(m[2]);
        this.noDeeper(indent);
      }
    }
    this.noDeeper(indent);
    return out;
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos];
      if (line.indent !== indent || !this.isItem(line.text)) break;
      const m = /^-( +)(.*)$/.exec(line.text);
      const rest = m ? m[2] : '';
      if (rest === '') {
        this.pos++;
        out.push(this.nested(indent, false));
      } else if (this.isItem(rest)) {
        return fallback();
      } else if (ENTRY.test(rest)) {
        // `- key: value`: a mapping whose entries line up with this first one.
        const at = indent + 1 + m![1].length;
        this.lines[this.pos] = { indent: at, text: rest };
        out.push(this.mapping(at));
      } else {
        this.pos++;
        out.push(inlineValue(rest));
        this.noDeeper(indent);
      }
    }
    this.noDeeper(indent);
    return out;
  }
}

/**
 * The kubeconfig text as yaml's `parse` reads it, as `{ value }`; undefined when the text is not one of the plain
 * shapes this reads (then parse it with the library).
 */
export function parseSimpleYaml(text: string): { value: unknown } | undefined {
  if (text.includes('\t') || text.includes('\r')) return undefined;
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const body = raw.trimStart();
    if (body === '' || body.startsWith('#')) continue;
    if (raw.startsWith('---') || raw.startsWith('...') || raw.startsWith('%')) return undefined;
    lines.push({ indent: raw.length - body.length, text: body.trimEnd() });
  }
  try {
    return { value: new BlockParser(lines).parseDocument() };
  } catch (e) {
    if (e instanceof NotSimple) return undefined;
    throw e;
  }
}
