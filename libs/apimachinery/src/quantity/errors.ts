// The errors a quantity can fail with. The three parse messages are upstream's, word for word, because API
// clients see them in validation errors (`spec.resources.limits[cpu]: Invalid value: ...`).

/** The pattern upstream names in its format error. It is looser than what parses; the message quotes it as is. */
const SPLIT_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

/** The text is not shaped like a number followed by a suffix. */
export const FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_PATTERN}'`;

/** The suffix is none of upstream's (e.g. `1i`, `1mi`, `1e`). */
export const SUFFIX_WRONG = "unable to parse quantity's suffix";

/** A suffix with no digits before it in a spelling that upstream reads as a decimal (e.g. `Ei`, `e-10`). */
export const NUMERIC_WRONG = 'unable to parse numeric part of quantity';

/** Arithmetic that would have to build an absurdly long number to stay exact (see MAX_SCALE_GAP). */
export const TOO_LARGE = 'quantity is too large to compute exactly';

export class QuantityError extends Error {
  override readonly name = 'QuantityError';
}
