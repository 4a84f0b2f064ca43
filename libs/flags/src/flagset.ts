// A pflag-compatible flag set. pflag's parsing rules, with one deliberate difference: every bad flag is
// reported at once instead of only the first, so a user fixes a command line in one go.
import type { ValueType } from './values';

export interface FlagDefinition<T = unknown> {
  name: string;
  type: ValueType<T>;
  default: T;
  usage: string;
  /** Heading the flag is listed under in `--help`. */
  section?: string;
  shorthand?: string;
  /** Printed as `Flag --x has been deprecated, <message>` when used; deprecated flags are hidden from help. */
  deprecated?: string;
  hidden?: boolean;
  /** Extra check on the parsed value; throw to reject it with the flag's invalid-argument message. */
  validate?: (value: T) => void;
}

export interface ParseResult {
  values: Record<string, unknown>;
  /** Names of the flags given on the command line (after normalisation). */
  explicit: Set<string>;
  /** Non-flag arguments, in order. */
  args: string[];
  errors: string[];
  warnings: string[];
}

/** kube's WordSepNormalizeFunc: `--fail_swap_on` is `--fail-swap-on`. */
export const normalizeFlagName = (name: string): string => name.replace(/_/g, '-');

export class FlagSet {
  private readonly flags = new Map<string, FlagDefinition<unknown>>();
  private readonly shorthands = new Map<string, string>();
  private readonly order: string[] = [];

  constructor(readonly programName: string) {}

  add<T>(def: FlagDefinition<T>): this {
    const name = normalizeFlagName(def.name);
    if (this.flags.has(name)) throw new Error(`${this.programName} flag redefined: ${name}`);
    this.flags.set(name, { ...(def as FlagDefinition<unknown>), name });
    if (def.shorthand) this.shorthands.set(def.shorthand, name);
    this.order.push(name);
    return this;
  }

  lookup(name: string): FlagDefinition | undefined {
    return this.flags.get(normalizeFlagName(name));
  }

  definitions(): FlagDefinition[] {
    return this.order.map((n) => this.flags.get(n)!);
  }

  defaults(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, def] of this.flags) out[name] = def.default;
    return out;
  }

  parse(argv: readonly string[]): ParseResult {
    const values = this.defaults();
    const explicit = new Set<string>();
    const args: string[] = [];
    const errors: string[] = [];
    const warnings: string[] = [];

    const set = (def: FlagDefinition, text: string, shown: string) => {
      try {
        const v = def.type.parse(text, values[def.name] as never);
        def.validate?.(v);
        values[def.name] = v;
        explicit.add(def.name);
        if (def.deprecated !== undefined) warnings.push(`Flag --${def.name} has been deprecated, ${def.deprecated}`);
      } catch (e) {
        errors.push(`invalid argument ${JSON.stringify(text)} for "${shown}" flag: ${(e as Error).message}`);
      }
    };
    const shown = (def: FlagDefinition) => (def.shorthand ? `-${def.shorthand}, --${def.name}` : `--${def.name}`);

    for (let i = 0; i < argv.length; i++) {
      const a = argv[i];
      if (a === '--') {
        args.push(...argv.slice(i + 1));
        break;
      }
      if (a.startsWith('--') && a.length > 2) {
        const body = a.slice(2);
        if (body.startsWith('-') || body.startsWith('=')) {
          errors.push(`bad flag syntax: ${a}`);
          continue;
        }
        const eq = body.indexOf('=');
        const name = normalizeFlagName(eq >= 0 ? body.slice(0, eq) : body);
        const def = this.flags.get(name);
        if (!def) {
          errors.push(`unknown flag: --${name}`);
          continue;
        }
        if (eq >= 0) set(def, body.slice(eq + 1), shown(def));
        else if (def.type.isBool) set(def, 'true', shown(def));
        else if (def.type.optionalValue !== undefined) set(def, def.type.optionalValue, shown(def));
        else if (i + 1 < argv.length) set(def, argv[++i], shown(def));
        else errors.push(`flag needs an argument: --${name}`);
        continue;
      }
      if (a.startsWith('-') && a.length > 1 && a !== '-') {
        // Shorthands: -v 4, -v4, -v=4, and bool shorthands grouped (-hx).
        let rest = a.slice(1);
        while (rest.length > 0) {
          const c = rest[0];
          const name = this.shorthands.get(c);
          const def = name ? this.flags.get(name) : undefined;
          if (!def) {
            errors.push(`unknown shorthand flag: '${c}' in ${a}`);
            break;
          }
          rest = rest.slice(1);
          if (rest.startsWith('=')) {
            set(def, rest.slice(1), shown(def));
            break;
          }
          if (def.type.isBool) {
            set(def, 'true', shown(def));
            continue;
          }
          if (def.type.optionalValue !== undefined && rest.length === 0) {
            set(def, def.type.optionalValue, shown(def));
            break;
          }
          if (rest.length > 0) set(def, rest, shown(def));
          else if (i + 1 < argv.length) set(def, argv[++i], shown(def));
          else errors.push(`flag needs an argument: '${c}' in ${a}`);
          break;
        }
        continue;
      }
      args.push(a);
    }
    return { values, explicit, args, errors, warnings };
  }

  /**
   * pflag's FlagUsages, grouped by section in definition order. pflag shows deprecated flags with a
   * `(DEPRECATED: ...)` note only when asked (`showDeprecated`); `sort` orders flags by name within a section.
   */
  usage(opts: UsageOptions = {}): string {
    const sections = new Map<string, FlagDefinition[]>();
    for (const def of this.definitions()) {
      if (def.hidden || (def.deprecated !== undefined && !opts.showDeprecated)) continue;
      const key = def.section ?? `${this.programName} flags`;
      if (!sections.has(key)) sections.set(key, []);
      sections.get(key)!.push(def);
    }
    const out: string[] = [];
    for (const [title, unsorted] of sections) {
      const defs = opts.sort ? [...unsorted].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) : unsorted;
      out.push(`${title[0].toUpperCase()}${title.slice(1)}:\n`);
      const lines = defs.map((def) => {
        const [typeWord, usage] = unquoteUsage(def);
        let left = `${def.shorthand ? `  -${def.shorthand}, ` : '      '}--${def.name}`;
        if (typeWord !== '') left += ' ' + typeWord;
        if (def.type.optionalValue !== undefined && !def.type.isBool) left += `[=${def.type.optionalValue}]`;
        let right = usage;
        const isZero = def.type.isZero?.(def.default as never) ?? false;
        if (!isZero) {
          const f = def.type.format(def.default as never);
          right += def.type.name === 'string' ? ` (default ${JSON.stringify(f)})` : ` (default ${f})`;
        }
        if (def.deprecated !== undefined) right += ` (DEPRECATED: ${def.deprecated})`;
        return [left, right] as const;
      });
      const width = Math.max(...lines.map(([l]) => l.length));
      for (const [l, r] of lines) out.push(`${l.padEnd(width)}   ${r.replace(/\n/g, '\n' + ' '.repeat(width + 3))}`);
      out.push('');
    }
    return out.join('\n');
  }
}

export interface UsageOptions {
  showDeprecated?: boolean;
  sort?: boolean;
}

/** pflag's UnquoteUsage: a back-quoted word in the usage names the value (`--seccomp-default RuntimeDefault`). */
function unquoteUsage(def: FlagDefinition): [string, string] {
  const m = /`([^`]*)`/.exec(def.usage);
  if (m) return [m[1], def.usage.slice(0, m.index) + m[1] + def.usage.slice(m.index + m[0].length)];
  if (def.type.isBool) return ['', def.usage];
  return [TYPE_WORDS[def.type.name] ?? def.type.name, def.usage];
}

// pflag prints a few value types under shorter words.
const TYPE_WORDS: Record<string, string> = { float64: 'float', int64: 'int', uint64: 'uint', stringSlice: 'strings' };
