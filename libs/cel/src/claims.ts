// JWT claims as Kubernetes hands them to CEL: JSON whose whole numbers within int64 are `int` (bigint
// here) and every other number `double`, as the unstructured converter does. `claimsToCel` converts an
// already parsed object (a JS number that is whole becomes an int); `parseClaimsJson` reads the JSON text
// itself, so `1.0` stays a double and large integers keep every digit.

export type CelValue = string | boolean | bigint | number | null | CelValue[] | { [k: string]: CelValue };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export function claimsToCel(v: unknown): CelValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) && Number.isSafeInteger(v) ? BigInt(v) : v;
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (Array.isArray(v)) return v.map(claimsToCel);
  if (typeof v === 'object') {
    const out: { [k: string]: CelValue } = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = claimsToCel(x);
    return out;
  }
  return String(v);
}

/** Parses JSON claims text. Throws SyntaxError on malformed JSON. */
export function parseClaimsJson(text: string): CelValue {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const bad = (): never => {
    throw new SyntaxError(`invalid JSON at offset ${i}`);
  };
  const str = (): string => {
    // eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings
    const m = /^"(?:[^"\\\u0000-\u001f]|\\.)*"/.exec(text.slice(i));
    if (!m) bad();
    i += m![0].length;
    return JSON.parse(m![0]) as string;
  };
  const value = (depth: number): CelValue => {
    if (depth > 500) bad();
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const out: { [k: string]: CelValue } = {};
      ws();
      if (text[i] === '}') return i++, out;
      for (;;) {
        ws();
        const k = str();
        ws();
        if (text[i++] !== ':') bad();
        out[k] = value(depth + 1);
        ws();
        const d = text[i++];
        if (d === '}') return out;
        if (d !== ',') bad();
      }
    }
    if (c === '[') {
      i++;
      const out: CelValue[] = [];
      ws();
      if (text[i] === ']') return i++, out;
      for (;;) {
        out.push(value(depth + 1));
        ws();
        const d = text[i++];
        if (d === ']') return out;
        if (d !== ',') bad();
      }
    }
    if (c === '"') return str();
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m) {
      i += m[0].length;
      if (!m[1] && !m[2]) {
        const b = BigInt(m[0]);
        if (b >= INT64_MIN && b <= INT64_MAX) return b;
      }
      return Number(m[0]);
    }
    for (const [lit, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(lit, i)) return (i += lit.length), v;
    }
    return bad();
  };
  const v = value(0);
  ws();
  if (i !== text.length) bad();
  return v;
}
