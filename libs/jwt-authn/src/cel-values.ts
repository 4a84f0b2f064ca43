// JSON claims as CEL sees them (apimachinery's ToUnstructured): whole numbers that fit int64 are CEL ints
// (bigint), every other number a double. JSON.parse loses that distinction (`1.0` becomes 1), so when the
// payload text holds a fraction, an exponent or a long integer it is re-read with a number-aware parser.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
// A digit next to `.`/`e`, or a run of 16+ digits: the cases where JSON.parse's numbers are ambiguous.
const AMBIGUOUS = /\d[.eE]|\d{16,}/;

export function intsToBigint(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(intsToBigint);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = intsToBigint(x);
    return out;
  }
  return v;
}

/** The CEL value of a JSON document; `parsed` is JSON.parse(text), reused when unambiguous. */
export function celValueFromJson(text: string, parsed: unknown): unknown {
  if (!AMBIGUOUS.test(text)) return intsToBigint(parsed);
  return new NumberAwareParser(text).parseDocument();
}

class NumberAwareParser {
  private i = 0;
  constructor(private readonly s: string) {}

  parseDocument(): unknown {
    const v = this.value();
    this.ws();
    if (this.i !== this.s.length) throw new Error('invalid character after top-level value');
    return v;
  }

  private ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i])) this.i++;
  }

  private value(): unknown {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const [lit, val] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.s.startsWith(lit, this.i)) {
        this.i += lit.length;
        return val;
      }
    }
    throw new Error(`invalid character ${JSON.stringify(c ?? '')} looking for beginning of value`);
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      const k = this.string();
      this.ws();
      if (this.s[this.i++] !== ':') throw new Error('expected colon');
      out[k] = this.value();
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') throw new Error('expected comma or }');
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') throw new Error('expected comma or ]');
    }
  }

  private string(): string {
    const start = this.i;
    if (this.s[this.i] !== '"') throw new Error('expected string');
    this.i++;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '\\') this.i += 2;
      else if (c === '"') {
        this.i++;
        return JSON.parse(this.s.slice(start, this.i)) as string;
      } else this.i++;
    }
    throw new Error('unterminated string');
  }

  private number(): bigint | number {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (!m) throw new Error('invalid number');
    this.i += m[0].length;
    if (!m[2] && !m[3]) {
      const b = BigInt(m[0]);
      if (b >= INT64_MIN && b <= INT64_MAX) return b;
    }
    return Number(m[0]);
  }
}
