// Value types of pflag and k8s.io/component-base/cli/flag, with the error text those packages give.
import { isIP } from 'node:net';
import { formatDuration, parseDuration } from './duration';

export interface ValueType<T> {
  /** The type word pflag prints in help (`string`, `int32`, `duration`, `mapStringString`, ...). */
  readonly name: string;
  /** Parse one occurrence; `previous` is the value so far when the flag repeats (for slices and maps). */
  parse(text: string, previous: T | undefined): T;
  format(value: T): string;
  /** Bools take no argument: `--x` means true, and `--x false` leaves `false` as a positional argument. */
  readonly isBool?: boolean;
  /**
   * pflag's NoOptDefVal for non-bool flags (`--version` means `--version=true`): the flag never takes the
   * next argument, and help prints the type as `name[=value]`.
   */
  readonly optionalValue?: string;
  /** Whether the help text prints `(default ...)` for this value. */
  isZero?(value: T): boolean;
}

const quote = (s: string) => JSON.stringify(s);

export function parseGoBool(text: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  throw new Error(`strconv.ParseBool: parsing ${quote(text)}: invalid syntax`);
}

/** strconv.ParseInt(text, 0, bits): decimal, 0x, 0o, 0b and leading-0 octal, with Go's two error forms. */
export function parseGoInt(text: string, bits: number, unsigned = false): number {
  const fn = unsigned ? 'strconv.ParseUint' : 'strconv.ParseInt';
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(text);
  if (!m || (unsigned && m[1] !== '')) throw new Error(`${fn}: parsing ${quote(text)}: invalid syntax`);
  const body = m[2].replace(/_/g, '');
  let v: bigint;
  if (/^0[xXoObB]/.test(body)) v = BigInt(body.toLowerCase());
  else if (body.length > 1 && body.startsWith('0')) v = BigInt('0o' + body.slice(1));
  else v = BigInt(body);
  if (m[1] === '-') v = -v;
  const max = unsigned ? (1n << BigInt(bits)) - 1n : (1n << BigInt(bits - 1)) - 1n;
  const min = unsigned ? 0n : -(1n << BigInt(bits - 1));
  if (v > max || v < min) throw new Error(`${fn}: parsing ${quote(text)}: value out of range`);
  return Number(v);
}

export const types = {
  string: { name: 'string', parse: (t) => t, format: (v) => v, isZero: (v) => v === '' } as ValueType<string>,
  bool: {
    name: 'bool',
    isBool: true,
    parse: (t) => parseGoBool(t),
    format: (v) => String(v),
    isZero: (v) => !v,
  } as ValueType<boolean>,
  int32: intType('int32', 32),
  int: intType('int', 64),
  int64: intType('int64', 64),
  uint16: intType('uint16', 16, true),
  uint32: intType('uint32', 32, true),
  float64: {
    name: 'float64',
    parse: (t) => {
      const v = Number(t);
      if (t.trim() === '' || Number.isNaN(v)) throw new Error(`strconv.ParseFloat: parsing ${quote(t)}: invalid syntax`);
      return v;
    },
    format: (v) => String(v),
    isZero: (v) => v === 0,
  } as ValueType<number>,
  /** Milliseconds. */
  duration: {
    name: 'duration',
    parse: (t) => parseDuration(t),
    format: (v) => formatDuration(v),
    isZero: (v) => v === 0,
  } as ValueType<number>,
  /** Comma-separated, repeatable; the first occurrence replaces the default. */
  stringSlice: sliceType('strings', (t) => splitCsv(t)),
  /** Repeatable, no comma splitting. */
  stringArray: sliceType('stringArray', (t) => [t]),
  mapStringString: mapType<string>('mapStringString', (k, v) => v, (v) => v, 'malformed pair, expect string=string'),
  mapStringBool: mapType<boolean>(
    'mapStringBool',
    (k, v) => {
      try {
        return parseGoBool(v);
      } catch (e) {
        throw new Error(`invalid value of ${k}: ${v}, err: ${(e as Error).message}`);
      }
    },
    (v) => String(v),
    'missing bool value for',
  ),
};

/** pflag's `ip` type: empty is allowed (unset), anything else must parse as an IPv4 or IPv6 address. */
export const ipType: ValueType<string> = {
  name: 'ip',
  parse: (t) => {
    const v = t.trim();
    if (v !== '' && isIP(v) === 0) throw new Error(`${quote(t)} is not a valid IP address`);
    return v;
  },
  format: (v) => v,
  isZero: (v) => v === '',
};

/** klog's `Level` (`-v`): an int32 printed as `Level` in help. */
export const levelType: ValueType<number> = { ...intType('int32', 32), name: 'Level' };

/**
 * component-base's ConfigurationMap (`--node-labels`): `k=v` pairs, a key without `=` gets an empty value,
 * never an error at parse time; repeats accumulate.
 */
export const configurationMap: ValueType<Record<string, string>> = mapType<string>(
  'mapStringString',
  (_k, v) => v,
  (v) => v,
  '',
  '<lenient>',
);

/** component-base's LangleSeparatedMapStringString (`--eviction-hard`): `signal<quantity` pairs. */
export const langleSeparatedMap: ValueType<Record<string, string>> = mapType<string>(
  'mapStringString',
  (_k, v) => v,
  (v) => v,
  'malformed pair, expect string<string',
  '<',
);

/** MapStringString with NoSplit (`--cpu-manager-policy-options`): the whole value is one `k=v` pair. */
export const noSplitMap: ValueType<Record<string, string>> = (() => {
  const touched = new WeakSet<object>();
  return {
    name: 'mapStringString',
    parse: (t, prev) => {
      const next: Record<string, string> = prev && touched.has(prev) ? { ...prev } : {};
      const trimmed = t.trim();
      if (trimmed !== '') {
        const eq = trimmed.indexOf('=');
        if (eq < 0) throw new Error('malformed pair, expect string=string');
        next[trimmed.slice(0, eq).trim()] = trimmed.slice(eq + 1).trim();
      }
      touched.add(next);
      return next;
    },
    format: (v) =>
      Object.keys(v)
        .sort()
        .map((k) => `${k}=${v[k]}`)
        .join(','),
    isZero: (v) => Object.keys(v).length === 0,
  };
})();

/**
 * component-base's ColonSeparatedMultimapStringString (`--manifest-url-header`): `name:value` items,
 * values of a repeated name kept in order; the first use replaces the default, repeats append.
 */
export const colonSeparatedMultimap: ValueType<Record<string, string[]>> = (() => {
  const touched = new WeakSet<object>();
  return {
    name: 'colonSeparatedMultimapStringString',
    parse: (t, prev) => {
      const next: Record<string, string[]> = {};
      if (prev && touched.has(prev)) for (const [k, v] of Object.entries(prev)) next[k] = [...v];
      for (const pair of t.split(',')) {
        if (pair.trim() === '') continue;
        const colon = pair.indexOf(':');
        if (colon < 0) throw new Error('malformed pair, expect string:string');
        const k = pair.slice(0, colon).trim();
        (next[k] ??= []).push(pair.slice(colon + 1).trim());
      }
      touched.add(next);
      return next;
    },
    format: (v) =>
      Object.keys(v)
        .sort()
        .flatMap((k) => v[k].map((x) => `${k}:${x}`))
        .join(','),
    isZero: (v) => Object.keys(v).length === 0,
  };
})();

function intType(name: string, bits: number, unsigned = false): ValueType<number> {
  return { name, parse: (t) => parseGoInt(t, bits, unsigned), format: (v) => String(v), isZero: (v) => v === 0 };
}

/** encoding/csv on one line, as pflag's stringSlice does (quotes allowed around an element). */
export function splitCsv(text: string): string[] {
  if (text === '') return [];
  const out: string[] = [];
  let cur = '';
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '"' && text[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') inQuotes = false;
      else cur += c;
    } else if (c === '"' && cur === '') inQuotes = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (inQuotes) throw new Error(`parse error on line 1, column ${text.length + 1}: extraneous or missing " in quoted-field`);
  out.push(cur);
  return out;
}

function sliceType(name: string, split: (t: string) => string[]): ValueType<string[]> {
  // The "touched" mark is kept on the array object so a repeat appends while the first use replaces the default.
  const touched = new WeakSet<string[]>();
  return {
    name,
    parse: (t, prev) => {
      const items = split(t);
      const next = prev && touched.has(prev) ? [...prev, ...items] : items;
      touched.add(next);
      return next;
    },
    format: (v) => `[${v.join(',')}]`,
    isZero: (v) => v.length === 0,
  };
}

function mapType<V>(
  name: string,
  parseValue: (key: string, value: string) => V,
  formatValue: (v: V) => string,
  malformed: string,
  separator = '=',
): ValueType<Record<string, V>> {
  // '<lenient>' is ConfigurationMap: a key without separator maps to an empty value instead of failing.
  const lenient = separator === '<lenient>';
  const sep = lenient ? '=' : separator;
  const touched = new WeakSet<object>();
  return {
    name,
    parse: (t, prev) => {
      const next: Record<string, V> = prev && touched.has(prev) ? { ...prev } : {};
      for (const pair of t.split(',')) {
        const trimmed = pair.trim();
        if (trimmed === '') continue;
        const eq = trimmed.indexOf(sep);
        if (eq < 0 && lenient) {
          next[trimmed] = parseValue(trimmed, '');
          continue;
        }
        if (eq < 0) {
          throw new Error(malformed.endsWith('for') ? `${malformed} ${trimmed}` : `${malformed}`);
        }
        const k = trimmed.slice(0, eq).trim();
        next[k] = parseValue(k, trimmed.slice(eq + 1).trim());
      }
      touched.add(next);
      return next;
    },
    format: (v) =>
      Object.keys(v)
        .sort()
        .map((k) => `${k}${sep}${formatValue(v[k])}`)
        .join(','),
    isZero: (v) => Object.keys(v).length === 0,
  };
}

/** component-base's MapStringBool as the kubelet's `--feature-gates` uses it: `malformed pair` on a missing `=`. */
export const featureGateMap: ValueType<Record<string, boolean>> = mapType<boolean>(
  'mapStringBool',
  (k, v) => {
    try {
      return parseGoBool(v);
    } catch (e) {
      throw new Error(`invalid value of ${k}: ${v}, err: ${(e as Error).message}`);
    }
  },
  (v) => String(v),
  'malformed pair, expect string=bool',
);
