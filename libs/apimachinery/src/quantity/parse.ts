// Reading a quantity's text: upstream's ParseQuantity, value for value and error for error, including which
// inputs keep their own spelling when printed back (see keepsSpelling).
import { type Decimal, ZERO, abs, compare, roundUpToScale, signOf } from './decimal';
import { FORMAT_WRONG, NUMERIC_WRONG, QuantityError, SUFFIX_WRONG } from './errors';
import { type QuantityFormat, type SuffixMeaning, interpretSuffix } from './suffix';

/**
 * What may follow the number: unit letters, then a sign and digits (`Ki`, `e-3`, `E+6`). This is looser than the
 * documented grammar on purpose, as upstream's scanner is: a bad suffix such as `1mi` or `1k5` is a suffix error,
 * not a format error. The three parts use disjoint characters, so matching is linear.
 */
const SUFFIX_SHAPE = /^[eEinumkKMGTP]*[+-]?[0-9]*$/;

/** Upstream rounds every quantity up to whole nano-units (10^-9). */
const NANO = -9;

const INT64_MAX: Decimal = { mantissa: 2n ** 63n - 1n, scale: 0 };
const ONE: Decimal = { mantissa: 1n, scale: 0 };

/** The parts of the text, as upstream's scanner splits it. */
interface Scanned {
  readonly negative: boolean;
  /** Integer digits without leading zeros; `0` when there are none. */
  readonly whole: string;
  readonly fraction: string;
  /** Whether the number part has any digit at all (`.` and `-` have none). */
  readonly hasDigits: boolean;
  readonly suffix: string;
}

export interface ParsedQuantity {
  readonly value: Decimal;
  readonly format: QuantityFormat;
  /** The text itself, when upstream would print it back unchanged. */
  readonly spelling: string | undefined;
}

function skipDigits(text: string, from: number): number {
  let end = from;
  while (end < text.length && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end++;
  return end;
}

/**
 * Splits sign, integer digits, optional `.fraction` and suffix, each part taking as much as it can, as upstream's
 * scanner does; `.`, `-` and `1.G` are well formed. A hand scan rather than one regular expression: a pattern with
 * adjacent digit runs backtracks quadratically on a long run of digits followed by a bad character.
 */
function scan(text: string): Scanned {
  const signed = text[0] === '-' || text[0] === '+';
  const integerEnd = skipDigits(text, signed ? 1 : 0);
  const integer = text.slice(signed ? 1 : 0, integerEnd);
  const hasPoint = text[integerEnd] === '.';
  const fractionEnd = hasPoint ? skipDigits(text, integerEnd + 1) : integerEnd;
  const fraction = hasPoint ? text.slice(integerEnd + 1, fractionEnd) : '';
  const suffix = text.slice(fractionEnd);
  if (!SUFFIX_SHAPE.test(suffix)) throw new QuantityError(FORMAT_WRONG);
  return {
    negative: text[0] === '-',
    whole: integer.replace(/^0+/, '') || '0',
    fraction,
    hasDigits: integer.length + fraction.length > 0,
    suffix,
  };
}

/**
 * Whether upstream takes its int64 fast path for this text. Only two things depend on it: a number with no digits
 * is zero on the fast path but a numeric error on the slow one (`Ki` is 0, `Ei` fails), and only fast-path text
 * can be kept as its own spelling. The digit budgets are upstream's: 18 decimal digits, and for binary suffixes
 * 14 minus about 3 per power of 1024 (so `Pi` and `Ei` never qualify).
 */
function takesFastPath(s: Scanned, meaning: SuffixMeaning): boolean {
  if (meaning.base === 2) return s.fraction === '' && 14 - s.whole.length - (meaning.exponent * 3) / 10 >= 0;
  return 18 - s.whole.length - s.fraction.length >= 0 && meaning.exponent - s.fraction.length >= NANO;
}

/**
 * Whether upstream prints the text back as written instead of re-deriving it. It keeps text that looks canonical
 * by a cheap test, so `1.500`, `+1`, `01` and `1E3` print as given while `1000` prints `1k` and `0.5` `500m`. For
 * binary suffixes the test is whether the number is not a multiple of 8 (`1Ki` kept, `1024Ki` becomes `1Mi`).
 */
function keepsSpelling(s: Scanned, meaning: SuffixMeaning): boolean {
  if (meaning.base === 2) return (BigInt(s.whole) & 7n) !== 0n;
  const digits = s.whole + s.fraction;
  return (meaning.exponent - s.fraction.length) % 3 === 0 && !digits.endsWith('000') && s.whole !== '0';
}

/** The number exactly as written, suffix applied. */
function exactValue(s: Scanned, meaning: SuffixMeaning): Decimal {
  const digits = BigInt(s.whole + s.fraction);
  const mantissa = meaning.base === 2 ? digits << BigInt(meaning.exponent) : digits;
  const scale = (meaning.base === 10 ? meaning.exponent : 0) - s.fraction.length;
  return { mantissa: s.negative ? -mantissa : mantissa, scale };
}

/**
 * Upstream's limits: round up (away from zero) to nano-units; cap binary quantities at the int64 maximum (decimal
 * ones are not capped, whatever the docs say); and print a binary quantity under 1 as decimal, since there is no
 * binary suffix for a fraction. Zero is left alone, so `0Ki` stays BinarySI.
 */
function settle(exact: Decimal, format: QuantityFormat): { value: Decimal; format: QuantityFormat } {
  const sign = signOf(exact.mantissa);
  if (sign === 0) return { value: exact, format };
  const value = roundUpToScale(exact, NANO);
  if (format !== 'BinarySI') return { value, format };
  const magnitude = { mantissa: abs(value.mantissa), scale: value.scale };
  if (compare(magnitude, INT64_MAX) > 0) return { value: { mantissa: BigInt(sign) * INT64_MAX.mantissa, scale: 0 }, format };
  return { value, format: compare(magnitude, ONE) < 0 ? 'DecimalSI' : format };
}

/** Parses a quantity's text as upstream's ParseQuantity does; throws QuantityError with upstream's messages. */
export function parseQuantityText(text: string): ParsedQuantity {
  if (text === '') throw new QuantityError(FORMAT_WRONG);
  if (text === '0') return { value: ZERO, format: 'DecimalSI', spelling: text };
  const scanned = scan(text);
  const meaning = interpretSuffix(scanned.suffix);
  if (!meaning) throw new QuantityError(SUFFIX_WRONG);
  const fast = takesFastPath(scanned, meaning);
  if (!fast && !scanned.hasDigits) throw new QuantityError(NUMERIC_WRONG);
  const { value, format } = settle(exactValue(scanned, meaning), meaning.format);
  return { value, format, spelling: fast && keepsSpelling(scanned, meaning) ? text : undefined };
}
