// What a suffix means, and which suffix a canonical value is written with (upstream's suffixer).

/** How a quantity is written back out; parsing remembers the kind of suffix it read. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A suffix read as a multiplier: base^exponent. */
export interface SuffixMeaning {
  readonly base: 2 | 10;
  readonly exponent: number;
  readonly format: QuantityFormat;
}

/** Powers of ten with an SI letter. No suffix is DecimalSI too, which is why a plain `5` prints as `5`. */
const DECIMAL_SI: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);

/** Powers of 1024, indexed by how many times 1024 divides the value; 0 is written without a suffix. */
const BINARY_SI: readonly string[] = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

const SI_FOR_EXPONENT: ReadonlyMap<number, string> = new Map([...DECIMAL_SI].map(([suffix, exp]) => [exp, suffix]));

/** `e`/`E` then what Go's strconv.ParseInt takes: an optional sign and decimal digits. */
const EXPONENT = /^[eE]([+-]?[0-9]+)$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The exponent of `1e<n>`. Upstream parses it as an int64 (so a longer one is a suffix error) and then keeps it in
 * an int32, wrapping around: `1e4294967296` is 1. We do the same, which also keeps every scale a safe JS integer.
 */
function decimalExponent(suffix: string): number | undefined {
  const match = EXPONENT.exec(suffix);
  if (!match) return undefined;
  const n = BigInt(match[1]!);
  if (n < INT64_MIN || n > INT64_MAX) return undefined;
  return Number(BigInt.asIntN(32, n));
}

/** The multiplier a suffix stands for; undefined when it is not one of upstream's. SI letters win over `E<n>`. */
export function interpretSuffix(suffix: string): SuffixMeaning | undefined {
  const si = DECIMAL_SI.get(suffix);
  if (si !== undefined) return { base: 10, exponent: si, format: 'DecimalSI' };
  const binary = BINARY_SI.indexOf(suffix);
  if (binary > 0) return { base: 2, exponent: binary * 10, format: 'BinarySI' };
  const exponent = decimalExponent(suffix);
  if (exponent !== undefined) return { base: 10, exponent, format: 'DecimalExponent' };
  return undefined;
}

/** The SI letter for 10^exponent (a multiple of 3), if there is one. */
export function decimalSISuffix(exponent: number): string | undefined {
  return SI_FOR_EXPONENT.get(exponent);
}

/** The binary suffix for 1024^power, if there is one. */
export function binarySISuffix(power: number): string | undefined {
  return BINARY_SI[power];
}
