// Label selectors as kube-apiserver and kubectl read them (`-l`, `?labelSelector=`, metav1.LabelSelector), with
// upstream's grammar and error text (k8s.io/apimachinery/pkg/labels/selector.go, Kubernetes 1.33):
//
//   selector    ::= requirement | requirement "," selector
//   requirement ::= ["!"] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
//
// KEY is a qualified name, VALUE a label value (possibly empty). Blanks (space, tab, CR, LF) separate tokens.
import { FieldError, GoLiteral, fieldErrors, goQuote } from '../field';
import { compareUtf8, isQualifiedName, isValidLabelValue } from '../names/validation';
import { SelectorError } from './errors';

export { SelectorError };

/** `gt`/`lt` are written `>`/`<`; `exists` is a bare key and `!` a key that must be absent. */
export type Operator = 'in' | 'notin' | 'exists' | '!' | '=' | '==' | '!=' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export interface LabelSelector {
  readonly requirements: readonly Requirement[];
  /** True when the selector restricts nothing (it matches every label set). */
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined | null): boolean;
  toString(): string;
}

// ---------------------------------------------------------------------------------------------------------------
// Requirements: construction (with upstream's validation), matching, printing.

/** Field paths of a requirement's parts when no path is given, as upstream prints them. */
const KEY_PATH = 'key';
const VALUES_PATH = 'values';

/**
 * The parser checks each key before building its requirement with a nil field path, which Go prints as `<nil>`:
 * users see `<nil>: Invalid value: "a/b/c": ...`, so we print that too.
 */
const PARSER_KEY_PATH = '<nil>';

function labelKeyError(key: string, path: string): FieldError | null {
  const msgs = isQualifiedName(key);
  return msgs.length ? fieldErrors.invalid(path, key, msgs.join('; ')) : null;
}

function labelValueError(key: string, value: string, path: string): FieldError | null {
  const msgs = isValidLabelValue(value);
  return msgs.length ? fieldErrors.invalid(`${path}[${key}]`, value, msgs.join('; ')) : null;
}

/**
 * `%#v` of the values slice. Only metav1 selectors can reach an error with no values, and upstream copies theirs
 * with `append(nil, ...)`, which leaves nil: hence `[]string(nil)` rather than `[]string{}`.
 */
function valuesForError(values: readonly string[]): unknown {
  return values.length === 0 ? new GoLiteral('[]string(nil)') : [...values];
}

/** strconv.ParseInt(s, 10, 64): optional sign, decimal digits, within int64. */
function parseInt64(s: string): bigint | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : null;
}

function operatorErrors(op: Operator, values: readonly string[]): FieldError[] {
  const bad = (detail: string) => [fieldErrors.invalid(VALUES_PATH, valuesForError(values), detail)];
  switch (op) {
    case 'in':
    case 'notin':
      return values.length === 0 ? bad("for 'in', 'notin' operators, values set can't be empty") : [];
    case '=':
    case '==':
    case '!=':
      return values.length !== 1 ? bad('exact-match compatibility requires one single value') : [];
    case 'exists':
    case '!':
      return values.length !== 0 ? bad('values set must be empty for exists and does not exist') : [];
    case 'gt':
    case 'lt':
      return [
        ...(values.length !== 1 ? bad("for 'Gt', 'Lt' operators, exactly one value is required") : []),
        ...values.flatMap((v, i) =>
          parseInt64(v) === null
            ? [fieldErrors.invalid(`${VALUES_PATH}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer")]
            : [],
        ),
      ];
  }
}

/** Upstream's aggregate error text: one message alone, several (deduplicated) in brackets. */
function aggregateMessage(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map((e) => e.message))];
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
}

/** labels.NewRequirement: every problem with the key, operator and values, reported together. */
function newRequirement(key: string, operator: Operator, values: string[]): Requirement {
  const errs: FieldError[] = [];
  const keyErr = labelKeyError(key, KEY_PATH);
  if (keyErr) errs.push(keyErr);
  errs.push(...operatorErrors(operator, values));
  values.forEach((v, i) => {
    const err = labelValueError(key, v, `${VALUES_PATH}[${i}]`);
    if (err) errs.push(err);
  });
  if (errs.length) throw new SelectorError(aggregateMessage(errs));
  return { key, operator, values };
}

function has(labels: Readonly<Record<string, string>>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

function compareInts(op: 'gt' | 'lt', labelValue: string, values: readonly string[]): boolean {
  const actual = parseInt64(labelValue);
  if (actual === null || values.length !== 1) return false;
  const wanted = parseInt64(values[0]);
  if (wanted === null) return false;
  return op === 'gt' ? actual > wanted : actual < wanted;
}

// Absent keys satisfy only the negative operators (notin, !=, !).
export function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const present = has(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return present && r.values.includes(labels[r.key]);
    case 'notin':
    case '!=':
      return !present || !r.values.includes(labels[r.key]);
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'gt':
    case 'lt':
      return present && compareInts(r.operator, labels[r.key], r.values);
  }
}

const OPERATOR_TEXT: Readonly<Record<Operator, string>> = {
  in: ' in ',
  notin: ' notin ',
  exists: '',
  '!': '',
  '=': '=',
  '==': '==',
  '!=': '!=',
  gt: '>',
  lt: '<',
};

/** The canonical text of a requirement; several values print sorted so equal selectors print alike. */
export function requirementToString(r: Requirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort(compareUtf8).join(',');
  const set = r.operator === 'in' || r.operator === 'notin';
  return `${r.key}${OPERATOR_TEXT[r.operator]}${set ? `(${values})` : values}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Selectors.

function freezeRequirement(r: Requirement): Requirement {
  return Object.freeze({ key: r.key, operator: r.operator, values: Object.freeze([...r.values]) as string[] });
}

class RequirementsSelector implements LabelSelector {
  readonly requirements: readonly Requirement[];

  /**
   * Requirements are kept sorted by key (stable), as upstream does, so equal selectors print alike. They are frozen
   * (values too, though typed as plain arrays) because selectors are shared between watchers.
   */
  constructor(requirements: readonly Requirement[]) {
    const sorted = [...requirements].sort((a, b) => compareUtf8(a.key, b.key));
    this.requirements = Object.freeze(sorted.map(freezeRequirement));
  }

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(labels: Readonly<Record<string, string>> | undefined | null): boolean {
    const set = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, set));
  }

  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }
}

/** Matches every label set. */
export const everythingLabelSelector: LabelSelector = new RequirementsSelector([]);

/** Matches no label set; what a missing (null) metav1.LabelSelector means. */
export const nothingLabelSelector: LabelSelector = Object.freeze({
  requirements: Object.freeze([]),
  empty: false,
  matches: () => false,
  toString: () => '',
});

// ---------------------------------------------------------------------------------------------------------------
// Lexer. It reads UTF-16 code units where upstream reads bytes; every symbol it cares about is ASCII, so both split
// the text the same way.

type TokenKind = 'error' | 'eos' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'in' | 'notin' | 'id';

interface Token {
  kind: TokenKind;
  literal: string;
}

const KEYWORDS: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

/** Upstream's reader returns a zero byte at the end, so a NUL in the text also ends a token (or the input). */
const END = '\0';

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const SYMBOLS: ReadonlySet<string> = new Set(['=', '!', '(', ')', ',', '>', '<']);
const isSpecial = (ch: string) => SYMBOLS.has(ch);

class Lexer {
  private pos = 0;

  constructor(private readonly text: string) {}

  private read(): string {
    return this.pos < this.text.length ? this.text[this.pos++] : END;
  }

  private unread(): void {
    this.pos--;
  }

  next(): Token {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === END) return { kind: 'eos', literal: '' };
    this.unread();
    return isSpecial(ch) ? this.symbol() : this.word();
  }

  /** An identifier, or the keywords `in`/`notin`; ends at a blank or a symbol. */
  private word(): Token {
    let text = '';
    for (let ch = this.read(); ch !== END; ch = this.read()) {
      if (isSpecial(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      text += ch;
    }
    return { kind: KEYWORDS.get(text) ?? 'id', literal: text };
  }

  /** The longest operator spelled by the run of symbols here (`!=` rather than `!`, `==` rather than `=`). */
  private symbol(): Token {
    let text = '';
    let found: Token | null = null;
    for (let ch = this.read(); ch !== END; ch = this.read()) {
      if (!isSpecial(ch)) {
        this.unread();
        break;
      }
      text += ch;
      const kind = KEYWORDS.get(text);
      if (kind) {
        found = { kind, literal: text };
      } else if (found) {
        this.unread();
        break;
      }
    }
    return found ?? { kind: 'error', literal: `error expected: keyword found '${text}'` };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Parser: recursive descent over the scanned tokens, one token of lookahead.

/**
 * Where `in`/`notin` are read as words: everywhere but the operator position, so `in=notin` and `x in (in)` work.
 */
type Context = 'operator' | 'values';

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

const OPERATOR_TOKENS: ReadonlyMap<TokenKind, Operator> = new Map<TokenKind, Operator>([
  ['in', 'in'],
  ['=', '='],
  ['==', '=='],
  ['>', 'gt'],
  ['<', 'lt'],
  ['notin', 'notin'],
  ['!=', '!='],
]);

class Parser {
  private readonly tokens: Token[] = [];
  private position = 0;

  constructor(text: string) {
    const lexer = new Lexer(text);
    for (let t = lexer.next(); ; t = lexer.next()) {
      this.tokens.push(t);
      if (t.kind === 'eos') break;
    }
  }

  private asContext(t: Token, context: Context): Token {
    return context === 'values' && (t.kind === 'in' || t.kind === 'notin') ? { kind: 'id', literal: t.literal } : t;
  }

  private lookahead(context: Context): Token {
    return this.asContext(this.tokens[Math.min(this.position, this.tokens.length - 1)], context);
  }

  private consume(context: Context): Token {
    const t = this.lookahead(context);
    this.position++;
    return t;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const t = this.lookahead('values');
      if (t.kind === 'eos') return requirements;
      if (t.kind !== 'id' && t.kind !== '!') {
        throw new SelectorError(`found '${t.literal}', expected: !, identifier, or 'end of string'`);
      }
      requirements.push(this.requirementOrExplain());
      const after = this.consume('values');
      if (after.kind === 'eos') return requirements;
      if (after.kind !== ',') throw new SelectorError(`found '${after.literal}', expected: ',' or 'end of string'`);
      const t2 = this.lookahead('values');
      if (t2.kind !== 'id' && t2.kind !== '!') {
        throw new SelectorError(`found '${t2.literal}', expected: identifier after ','`);
      }
    }
  }

  private requirementOrExplain(): Requirement {
    try {
      return this.requirement();
    } catch (e) {
      if (e instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${e.message}`);
      throw e;
    }
  }

  private requirement(): Requirement {
    const { key, operator } = this.keyAndInferredOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.operator();
    const values = op === 'in' || op === 'notin' ? this.valueSet() : this.exactValue();
    // Upstream collects values in a set: they come out sorted and without duplicates.
    return newRequirement(key, op, [...values].sort(compareUtf8));
  }

  /** A key, preceded by `!` for "must not exist"; a bare key followed by `,` or the end means "exists". */
  private keyAndInferredOperator(): { key: string; operator: Operator | null } {
    let t = this.consume('values');
    const absent = t.kind === '!';
    if (absent) t = this.consume('values');
    if (t.kind !== 'id') throw new SelectorError(`found '${t.literal}', expected: identifier`);
    const keyErr = labelKeyError(t.literal, PARSER_KEY_PATH);
    if (keyErr) throw new SelectorError(keyErr.message);
    if (absent) return { key: t.literal, operator: '!' };
    const next = this.lookahead('values').kind;
    return { key: t.literal, operator: next === 'eos' || next === ',' ? 'exists' : null };
  }

  private operator(): Operator {
    const t = this.consume('operator');
    const op = OPERATOR_TOKENS.get(t.kind);
    if (!op) throw new SelectorError(`found '${t.literal}', expected: ${BINARY_OPERATORS}`);
    return op;
  }

  /** `( values )`; `()` is the set holding just the empty value. */
  private valueSet(): Set<string> {
    const open = this.consume('values');
    // Upstream's message has no colon after "expected" here.
    if (open.kind !== '(') throw new SelectorError(`found '${open.literal}' expected: '('`);
    const first = this.lookahead('values');
    if (first.kind === ')') {
      this.consume('values');
      return new Set(['']);
    }
    if (first.kind !== 'id' && first.kind !== ',') {
      throw new SelectorError(`found '${first.literal}', expected: ',', ')' or identifier`);
    }
    const values = this.identifierList();
    if (this.consume('values').kind !== ')') throw new SelectorError(`found '${first.literal}', expected: ')'`);
    return values;
  }

  /**
   * Comma-separated values up to (not including) `)`. Empty entries (`(,a)`, `(a,,b)`, `(a,)`) stand for the empty
   * value.
   */
  private identifierList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const t = this.consume('values');
      if (t.kind === 'id') {
        values.add(t.literal);
        const next = this.lookahead('values');
        if (next.kind === ')') return values;
        if (next.kind !== ',') throw new SelectorError(`found '${next.literal}', expected: ',' or ')'`);
        continue;
      }
      if (t.kind !== ',') throw new SelectorError(`found '${t.literal}', expected: ',', or identifier`);
      if (values.size === 0) values.add(''); // a leading comma
      const next = this.lookahead('values').kind;
      if (next === ')') {
        values.add(''); // a trailing comma
        return values;
      }
      if (next === ',') {
        this.consume('values');
        values.add(''); // two commas in a row
      }
    }
  }

  /** The single value after `=`, `==`, `!=`, `>` or `<`; nothing before `,` or the end means the empty value. */
  private exactValue(): Set<string> {
    const next = this.lookahead('values').kind;
    if (next === 'eos' || next === ',') return new Set(['']);
    const t = this.consume('values');
    if (t.kind !== 'id') throw new SelectorError(`found '${t.literal}', expected: identifier`);
    return new Set([t.literal]);
  }
}

/** Parses selector text (`a=b,c in (d,e),!f`); the empty string selects everything. Throws SelectorError. */
export function parseLabelSelector(text: string): LabelSelector {
  return new RequirementsSelector(new Parser(text).parse());
}

// ---------------------------------------------------------------------------------------------------------------
// metav1.LabelSelector.

export interface MetaLabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface MetaLabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: MetaLabelSelectorRequirement[] | null;
}

const META_OPERATORS: ReadonlyMap<string, Operator> = new Map<string, Operator>([
  ['In', 'in'],
  ['NotIn', 'notin'],
  ['Exists', 'exists'],
  ['DoesNotExist', '!'],
]);

function metaRequirement(expr: MetaLabelSelectorRequirement): Requirement {
  const op = META_OPERATORS.get(expr.operator);
  if (!op) throw new SelectorError(`${goQuote(expr.operator)} is not a valid label selector operator`);
  // Unlike parsed ones, these values keep the order (and duplicates) they were written with.
  return newRequirement(expr.key, op, [...(expr.values ?? [])]);
}

/**
 * metav1.LabelSelectorAsSelector: a null selector selects nothing, an empty one everything; matchLabels and
 * matchExpressions are ANDed. Throws SelectorError for an unknown operator or an invalid key or value.
 */
export function labelSelectorFromMeta(sel: MetaLabelSelector | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return nothingLabelSelector;
  const matchLabels = sel.matchLabels ?? {};
  const keys = Object.keys(matchLabels).sort(compareUtf8);
  const exprs = sel.matchExpressions ?? [];
  if (keys.length + exprs.length === 0) return everythingLabelSelector;
  const requirements = keys.map((k) => newRequirement(k, '=', [matchLabels[k]]));
  requirements.push(...exprs.map(metaRequirement));
  return new RequirementsSelector(requirements);
}
