// Go's time.ParseDuration and time.Duration.String(), in milliseconds with fractions kept, because
// flag values and config files written for Kubernetes use Go durations ("1m0s", "1h2m3.5s", "500ms").

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3, // U+00B5 micro sign
  'μs': 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export class DurationError extends Error {}

/** Parses a Go duration; returns milliseconds (may be fractional). Throws with Go's message on bad input. */
export function parseDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new DurationError(`time: invalid duration ${quoted}`);
  let total = 0;
  while (s !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    if (num[0] === '' || num[0] === '.' || (num[1] === '' && (num[2] ?? '') === '')) {
      throw new DurationError(`time: invalid duration ${quoted}`);
    }
    s = s.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === '') throw new DurationError(`time: missing unit in duration ${quoted}`);
    const ms = UNIT_MS[unit];
    if (ms === undefined) throw new DurationError(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    s = s.slice(unit.length);
    total += Number(`${num[1] || '0'}.${num[2] || '0'}`) * ms;
  }
  if (total * 1e6 >= 2 ** 63) throw new DurationError(`time: invalid duration ${quoted}`);
  return sign * total;
}

/** Formats milliseconds the way Go's Duration.String() does: "0s", "500ms", "1m0s", "1h2m3.5s". */
export function formatDuration(ms: number): string {
  let ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const neg = ns < 0;
  if (neg) ns = -ns;
  let out: string;
  if (ns < 1e9) {
    // Sub-second: the largest unit that keeps the integer part non-zero.
    const [unit, size] = ns < 1e3 ? ['ns', 1] : ns < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    out = trimFraction(ns / size) + unit;
  } else {
    const h = Math.floor(ns / 3.6e12);
    ns -= h * 3.6e12;
    const m = Math.floor(ns / 6e10);
    ns -= m * 6e10;
    const sec = trimFraction(ns / 1e9) + 's';
    out = h > 0 ? `${h}h${m}m${sec}` : m > 0 ? `${m}m${sec}` : sec;
  }
  return neg ? '-' + out : out;
}

function trimFraction(x: number): string {
  // Go prints up to 9 fractional digits and drops trailing zeros.
  return x.toFixed(9).replace(/\.?0+$/, '');
}
