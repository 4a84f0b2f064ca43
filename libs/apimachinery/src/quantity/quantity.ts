// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource, 1.33): fixed-point numbers with SI,
// binary or exponent suffixes, such as `100m`, `1Gi`, `1e3`, kept exact in BigInt rather than floating point.
import { type Decimal, add, compare, negate, scaledInteger, signOf } from './decimal';
import { FORMAT_WRONG, QuantityError } from './errors';
import { canonicalText } from './format';
import { parseQuantityText } from './parse';
import type { QuantityFormat } from './suffix';

/** One character of Go's unicode.IsSpace. It is not JS's \s: Go also counts U+0085 (NEL) and not U+FEFF (BOM). */
const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/**
 * Go's strings.TrimSpace, which upstream applies to a quantity read from JSON. Scanned by hand: an anchored-at-end
 * pattern would rescan every inner run of spaces and go quadratic on hostile input.
 */
function trimGoSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && GO_SPACE.test(text[start]!)) start++;
  while (end > start && GO_SPACE.test(text[end - 1]!)) end--;
  return text.slice(start, end);
}

export class Quantity {
  /** Which kind of suffix the quantity prints with. A zero quantity takes the other operand's in add/sub. */
  readonly format: QuantityFormat;
  private readonly amount: Decimal;
  /** The printed form: the parsed text when upstream keeps it, otherwise computed once on demand. */
  private text: string | undefined;

  private constructor(amount: Decimal, format: QuantityFormat, text?: string) {
    this.amount = amount;
    this.format = format;
    this.text = text;
  }

  /** Parses `100m`, `1Gi`, `1.5e3`, ...; throws QuantityError with upstream's message when the text is not one. */
  static parse(text: string): Quantity {
    const parsed = parseQuantityText(text);
    return new Quantity(parsed.value, parsed.format, parsed.spelling);
  }

  /**
   * A JSON number as a quantity. String(n) is the shortest decimal that reads back as n, which is what
   * JSON.stringify sends, so this matches what a Go server parses from the same JSON (1e21 arrives as `1e+21`).
   */
  static fromNumber(n: number): Quantity {
    if (!Number.isFinite(n)) throw new QuantityError(FORMAT_WRONG);
    return Quantity.parse(String(n));
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than other, exactly and whatever the formats. */
  cmp(other: Quantity): number {
    return compare(this.amount, other.amount);
  }

  add(other: Quantity): Quantity {
    return this.combine(other, other.amount);
  }

  sub(other: Quantity): Quantity {
    return this.combine(other, negate(other.amount));
  }

  /**
   * The exact sum, in this quantity's format unless this is zero: then the other's, so `0 + 1Gi` prints `1Gi`
   * (upstream's rule, which lets a total start from zero). Throws QuantityError past MAX_SCALE_GAP.
   */
  private combine(other: Quantity, addend: Decimal): Quantity {
    const format = this.isZero() ? other.format : this.format;
    return new Quantity(add(this.amount, addend), format);
  }

  isZero(): boolean {
    return this.amount.mantissa === 0n;
  }

  /** -1, 0 or 1. */
  sign(): number {
    return signOf(this.amount.mantissa);
  }

  /**
   * The value as a whole number, rounded away from zero (1.1 is 2, -1.1 is -2), as upstream documents Value().
   * Exact at any size, where upstream's int64 would overflow.
   */
  value(): bigint {
    return scaledInteger(this.amount, 0);
  }

  /** The value in thousandths, rounded away from zero (1n is 1, 1.5 is 1500), as upstream's MilliValue(). */
  milliValue(): bigint {
    return scaledInteger(this.amount, -3);
  }

  /** Upstream's String(): the canonical form (`1500m`, `1536Mi`, `1e3`), or the parsed text where upstream keeps it. */
  toString(): string {
    this.text ??= canonicalText(this.amount, this.format);
    return this.text;
  }

  /** Quantities serialize as JSON strings, as upstream's MarshalJSON. */
  toJSON(): string {
    return this.toString();
  }
}

/**
 * A quantity from decoded JSON, as upstream's UnmarshalJSON: a string (with surrounding whitespace trimmed the
 * way Go trims it) or a number. Anything else, null included, is a QuantityError.
 */
export function parseQuantity(value: unknown): Quantity {
  if (typeof value === 'string') return Quantity.parse(trimGoSpace(value));
  if (typeof value === 'number') return Quantity.fromNumber(value);
  throw new QuantityError(FORMAT_WRONG);
}
