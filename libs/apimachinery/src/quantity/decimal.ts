// Exact decimal arithmetic on BigInt. A quantity is never a floating-point number (upstream's whole point), so a
// value here is mantissa × 10^scale, and every operation is exact or rounds explicitly, away from zero.
import { QuantityError, TOO_LARGE } from './errors';

/** An exact decimal number: `mantissa × 10^scale`. */
export interface Decimal {
  readonly mantissa: bigint;
  readonly scale: number;
}

export const ZERO: Decimal = { mantissa: 0n, scale: 0 };

/**
 * The most decimal places an operation may add to line two values up, or to turn one into an integer. The
 * exponent of `1e2000000000` is legal, and upstream would try to build 10^2000000000 to add 1 to it (stalling or
 * running out of memory); we refuse past this instead. No real resource amount comes near it.
 */
export const MAX_SCALE_GAP = 10_000;

/** 10^k, only for k already checked against MAX_SCALE_GAP or bounded by the length of a mantissa we hold. */
function pow10(k: number): bigint {
  return 10n ** BigInt(k);
}

function checkedPow10(k: number): bigint {
  if (k > MAX_SCALE_GAP) throw new QuantityError(TOO_LARGE);
  return pow10(k);
}

export function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

export function signOf(n: bigint): number {
  if (n === 0n) return 0;
  return n < 0n ? -1 : 1;
}

/** How many decimal digits |n| has. */
export function digitCount(n: bigint): number {
  return abs(n).toString().length;
}

export function negate(d: Decimal): Decimal {
  return { mantissa: -d.mantissa, scale: d.scale };
}

/** Both mantissas at the smaller of the two scales, so they can be added or compared digit for digit. */
function align(a: Decimal, b: Decimal, pow: (k: number) => bigint): [bigint, bigint] {
  if (a.scale >= b.scale) return [a.mantissa * pow(a.scale - b.scale), b.mantissa];
  return [a.mantissa, b.mantissa * pow(b.scale - a.scale)];
}

/**
 * Compares two non-zero magnitudes. The position of the leading digit decides first, so `1e2000000000` against
 * `1e1999999999` costs nothing; when the leading digits sit at the same place, the scales differ by less than a
 * mantissa's length, so lining them up stays as small as the numbers we already hold.
 */
function compareMagnitude(a: Decimal, b: Decimal): number {
  const leadA = digitCount(a.mantissa) + a.scale;
  const leadB = digitCount(b.mantissa) + b.scale;
  if (leadA !== leadB) return leadA < leadB ? -1 : 1;
  const [x, y] = align({ mantissa: abs(a.mantissa), scale: a.scale }, { mantissa: abs(b.mantissa), scale: b.scale }, pow10);
  if (x === y) return 0;
  return x < y ? -1 : 1;
}

/** -1, 0 or 1 as a is less than, equal to or greater than b, exactly. */
export function compare(a: Decimal, b: Decimal): number {
  const signA = signOf(a.mantissa);
  const signB = signOf(b.mantissa);
  if (signA !== signB) return signA < signB ? -1 : 1;
  if (signA === 0) return 0;
  const magnitude = compareMagnitude(a, b);
  // Negating 0 would give -0, which callers comparing with Object.is (Jest's toBe) do not take for 0.
  return magnitude === 0 ? 0 : magnitude * signA;
}

/** a + b, exactly. A zero operand needs no lining up, whatever its scale. */
export function add(a: Decimal, b: Decimal): Decimal {
  if (b.mantissa === 0n) return a;
  if (a.mantissa === 0n) return b;
  const [x, y] = align(a, b, checkedPow10);
  return { mantissa: x + y, scale: Math.min(a.scale, b.scale) };
}

/**
 * d rounded away from zero so that it has no digits below 10^scale. When d is smaller than one unit of that
 * place, the answer is one unit (upstream: "if you want some resources, you should get some"); we say so
 * without building 10^shift, so `1e-2000000000` rounds as fast as `1e-10`.
 */
export function roundUpToScale(d: Decimal, scale: number): Decimal {
  if (d.scale >= scale) return d;
  const shift = scale - d.scale;
  const sign = BigInt(signOf(d.mantissa));
  if (shift >= digitCount(d.mantissa)) return { mantissa: sign, scale };
  const unit = pow10(shift);
  const quotient = d.mantissa / unit;
  const rounded = d.mantissa % unit === 0n ? quotient : quotient + sign;
  return { mantissa: rounded, scale };
}

/** d / 10^scale as an integer, rounded away from zero (upstream's Value and MilliValue contract). */
export function scaledInteger(d: Decimal, scale: number): bigint {
  if (d.scale >= scale) return d.mantissa * checkedPow10(d.scale - scale);
  return roundUpToScale(d, scale).mantissa;
}

/** d as an integer when it is one; undefined when it has a fractional part. */
export function exactInteger(d: Decimal): bigint | undefined {
  const rounded = scaledInteger(d, 0);
  return compare({ mantissa: rounded, scale: 0 }, d) === 0 ? rounded : undefined;
}

/**
 * m without its trailing decimal zeros, and how many there were (m ≠ 0). Counted on the text, one pass at any size
 * (a /0+$/ replace would rescan every run of inner zeros and go quadratic).
 */
export function stripTens(m: bigint): { mantissa: bigint; zeros: number } {
  const digits = abs(m).toString();
  let end = digits.length;
  while (end > 1 && digits[end - 1] === '0') end--;
  const mantissa = BigInt(digits.slice(0, end));
  return { mantissa: m < 0n ? -mantissa : mantissa, zeros: digits.length - end };
}
