// Writing a quantity out in upstream's canonical form (CanonicalizeBytes): no fractional digits, the largest
// suffix that loses nothing, and the kind of suffix the quantity was read with where that is possible.
import { type Decimal, abs, compare, exactInteger, stripTens } from './decimal';
import { type QuantityFormat, binarySISuffix, decimalSISuffix } from './suffix';

const BINARY_FLOOR: Decimal = { mantissa: 1024n, scale: 0 };

/**
 * The value as an integer mantissa and a power of ten that is a multiple of 3 (1.1e5 is 110 × 10^3): strip the
 * trailing zeros into the exponent, then lower the exponent to the multiple of 3 below, which can only add zeros
 * to the mantissa, never a fraction.
 */
function engineering(value: Decimal): { mantissa: bigint; exponent: number } {
  const { mantissa, zeros } = stripTens(value.mantissa);
  const exponent = value.scale + zeros;
  const excess = ((exponent % 3) + 3) % 3;
  return { mantissa: mantissa * 10n ** BigInt(excess), exponent: exponent - excess };
}

/**
 * Decimal forms. Upstream 1.33 writes a DecimalSI value past the last SI letter (10^21 and up) with no suffix at
 * all, so `1000E` prints as `1`, a silent loss of 21 orders of magnitude; later upstream (kubernetes#140459) writes
 * it in exponent form instead, and so do we: `1e21`.
 */
function decimalText(value: Decimal, format: 'DecimalSI' | 'DecimalExponent'): string {
  const { mantissa, exponent } = engineering(value);
  const si = format === 'DecimalSI' ? decimalSISuffix(exponent) : undefined;
  if (si !== undefined) return `${mantissa}${si}`;
  return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
}

/**
 * Binary form of a whole number of at least 1024 in magnitude: divide out 1024 while it divides evenly. Past `Ei`
 * (reachable only by adding capped quantities) we fall back to exponent form, as later upstream does.
 */
function binaryText(value: Decimal, whole: bigint): string {
  let mantissa = abs(whole);
  let power = 0;
  while (mantissa % 1024n === 0n) {
    mantissa /= 1024n;
    power++;
  }
  const suffix = binarySISuffix(power);
  if (suffix === undefined) return decimalText(value, 'DecimalExponent');
  return `${whole < 0n ? '-' : ''}${mantissa}${suffix}`;
}

/**
 * A BinarySI quantity prints in binary only when that is exact and useful: under 1024 in magnitude (500m, 5) or
 * with a fraction (1.5) it prints as DecimalSI rather than rounding.
 */
function binaryOrDecimalText(value: Decimal): string {
  const magnitude = { mantissa: abs(value.mantissa), scale: value.scale };
  const whole = compare(magnitude, BINARY_FLOOR) >= 0 ? exactInteger(value) : undefined;
  return whole === undefined ? decimalText(value, 'DecimalSI') : binaryText(value, whole);
}

/** The canonical text of a value in a format; zero is `0` in every format, never `0Ki` or `-0`. */
export function canonicalText(value: Decimal, format: QuantityFormat): string {
  if (value.mantissa === 0n) return '0';
  if (format === 'BinarySI') return binaryOrDecimalText(value);
  return decimalText(value, format);
}
