import { goQuote } from '@cl/flags';

export { goQuote };

// A port of apimachinery's field.Path / field.ErrorList: the error text users of kube-apiserver and the
// kubelet know (`jwt[0].issuer.url: Invalid value: "http://x": URL scheme must be https`).

export class FieldPath {
  private constructor(
    private readonly parent: FieldPath | null,
    private readonly name: string,
    private readonly subscript: string | null,
  ) {}

  static root(name: string, ...more: string[]): FieldPath {
    let p = new FieldPath(null, name, null);
    for (const m of more) p = p.child(m);
    return p;
  }

  child(name: string, ...more: string[]): FieldPath {
    let p: FieldPath = new FieldPath(this, name, null);
    for (const m of more) p = p.child(m);
    return p;
  }

  /** `a.b[3]` */
  index(i: number): FieldPath {
    return new FieldPath(this, '', String(i));
  }

  /** `a.b[key]` (map keys are printed bare, as upstream does) */
  key(k: string): FieldPath {
    return new FieldPath(this, '', k);
  }

  toString(): string {
    const own = this.subscript !== null ? `[${this.subscript}]` : (this.parent ? '.' : '') + this.name;
    return (this.parent ? this.parent.toString() : '') + own;
  }
}

export type FieldErrorType =
  | 'Not found'
  | 'Required value'
  | 'Duplicate value'
  | 'Invalid value'
  | 'Unsupported value'
  | 'Forbidden'
  | 'Too long'
  | 'Too many'
  | 'Internal error';

/** Marks an error whose bad value is not printed (upstream's `field.OmitValueType`). */
export const OMIT_VALUE: unique symbol = Symbol('omit value');

export class FieldError extends Error {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly badValue: unknown,
    readonly detail: string,
  ) {
    super('');
    this.message = `${field}: ${this.body()}`;
  }

  body(): string {
    let s: string;
    if (
      this.type === 'Required value' ||
      this.type === 'Forbidden' ||
      this.type === 'Too long' ||
      this.type === 'Internal error' ||
      this.badValue === OMIT_VALUE
    ) {
      s = this.type;
    } else {
      s = `${this.type}: ${formatBadValue(this.badValue)}`;
    }
    if (this.detail) s += `: ${this.detail}`;
    return s;
  }
}

/** How apimachinery prints a bad value: strings quoted, numbers and bools bare, null as `null`, others as Go-ish literals. */
export function formatBadValue(v: unknown): string {
  if (v instanceof GoLiteral) return v.text;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]string{${v.map((x) => (typeof x === 'string' ? goQuote(x) : String(x))).join(', ')}}`;
  return JSON.stringify(v);
}

type P = FieldPath | string;
const s = (p: P) => String(p);

export const fieldErrors = {
  required: (p: P, detail = '') => new FieldError('Required value', s(p), '', detail),
  invalid: (p: P, value: unknown, detail: string) => new FieldError('Invalid value', s(p), value, detail),
  duplicate: (p: P, value: unknown) => new FieldError('Duplicate value', s(p), value, ''),
  notFound: (p: P, value: unknown) => new FieldError('Not found', s(p), value, ''),
  forbidden: (p: P, detail: string) => new FieldError('Forbidden', s(p), '', detail),
  tooLong: (p: P, max: number) => new FieldError('Too long', s(p), '', `must have at most ${max} bytes`),
  tooMany: (p: P, actual: number, max: number) =>
    new FieldError('Too many', s(p), actual, `must have at most ${max} items`),
  internal: (p: P, err: Error) => new FieldError('Internal error', s(p), '', err.message),
  notSupported: (p: P, value: unknown, supported: readonly string[]) =>
    new FieldError(
      'Unsupported value',
      s(p),
      value,
      supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '',
    ),
};

export type ErrorList = FieldError[];

/** An aggregate of every error, printed one per line the way `cl-config validate` and start-up report them. */
export class ValidationError extends Error {
  constructor(readonly errors: readonly Error[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'ValidationError';
  }
}

/** A bad value printed verbatim, for upstream messages that embed Go `%#v` struct literals. */
export class GoLiteral {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}
