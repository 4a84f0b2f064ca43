// A small JSON parser producing a JNode tree. JSON.parse cannot be used: it drops repeated keys silently
// and rounds int64 values, and strict decoding must report the first and keep the second exact.
import type { JNode } from './tree';

export class JsonSyntaxError extends Error {}

const MAX_DEPTH = 1000;

export function parseJsonTree(text: string): JNode {
  let i = 0;
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const fail = (what: string): never => {
    if (i >= text.length) throw new JsonSyntaxError('unexpected end of JSON input');
    throw new JsonSyntaxError(`invalid character ${quoteChar(text[i]!)} ${what}`);
  };

  const value = (depth: number): JNode => {
    if (depth > MAX_DEPTH) throw new JsonSyntaxError('exceeded max depth');
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: Array<[string, JNode]> = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'object', entries, span: [start, i] };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('looking for beginning of object key string');
        const k = string();
        ws();
        if (text[i] !== ':') fail('after object key');
        i++;
        entries.push([k, value(depth + 1)]);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return { t: 'object', entries, span: [start, i] };
        }
        fail('after object key:value pair');
      }
    }
    if (c === '[') {
      i++;
      const items: JNode[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'array', items, span: [start, i] };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return { t: 'array', items, span: [start, i] };
        }
        fail('after array element');
      }
    }
    if (c === '"') {
      const v = string();
      return { t: 'string', v, span: [start, i] };
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      if (!m) fail('in numeric literal');
      i += m![0].length;
      return { t: 'number', raw: m![0], span: [start, i] };
    }
    for (const [lit, node] of [
      ['true', { t: 'bool', v: true }],
      ['false', { t: 'bool', v: false }],
      ['null', { t: 'null' }],
    ] as const) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return { ...node, span: [start, i] } as JNode;
      }
    }
    return fail('looking for beginning of value');
  };

  const string = (): string => {
    const start = i;
    i++;
    let simple = true;
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail('in string literal');
      if (text[i] === '\\') {
        simple = false;
        i++;
      }
      i++;
    }
    if (i >= text.length) throw new JsonSyntaxError('unexpected end of JSON input');
    i++;
    const lit = text.slice(start, i);
    if (simple) return lit.slice(1, -1);
    try {
      return JSON.parse(lit) as string;
    } catch {
      throw new JsonSyntaxError('invalid escape in string literal');
    }
  };

  const root = value(0);
  ws();
  if (i < text.length) fail('after top-level value');
  return root;
}

function quoteChar(c: string): string {
  return c === "'" ? `'\\''` : `'${c}'`;
}
