// Field selectors (`?fieldSelector=`, `kubectl --field-selector`) with upstream's syntax and error text
// (k8s.io/apimachinery/pkg/fields/selector.go, Kubernetes 1.33): comma-separated `field=value`, `field==value` or
// `field!=value` terms, ANDed. Values escape `\`, `,` and `=` with a backslash; fields are taken literally, and
// nothing is trimmed (`a = b` compares field "a " with " b").
import { compareUtf8 } from '../names/validation';
import { SelectorError } from './errors';

export { SelectorError };

export interface FieldRequirement {
  field: string;
  /** `==` is read as `=`. */
  operator: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  /** True when the selector restricts nothing. */
  readonly empty: boolean;
  /** `fieldValue` returns an object's value for a field; a field it does not know (undefined) counts as "". */
  matches(fieldValue: (field: string) => string | undefined): boolean;
  toString(): string;
}

/** Escapes a literal value for use in a field selector. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Undoes escapeFieldValue; an unknown escape or a bare `,`/`=` is an error. Throws SelectorError. */
export function unescapeFieldValue(text: string): string {
  if (!/[\\,=]/.test(text)) return text;
  let out = '';
  let inSlash = false;
  for (const ch of text) {
    if (inSlash) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        throw new SelectorError(`invalid field selector: invalid escape sequence: \\${ch}`);
      }
      out += ch;
      inSlash = false;
    } else if (ch === '\\') {
      inSlash = true;
    } else if (ch === ',' || ch === '=') {
      // Upstream prints the rune with %v, i.e. as its number (61 for '=').
      throw new SelectorError(`invalid field selector: unescaped character in value: ${ch.codePointAt(0)}`);
    } else {
      out += ch;
    }
  }
  if (inSlash) throw new SelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas that are not escaped; escapes stay in the terms for unescapeFieldValue to read. */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

// `!=` and `==` are tried before `=` at each position so neither leaves a stray character in the value.
const TERM_OPERATORS = ['!=', '==', '='] as const;

/** The term split at the first operator found, scanning left to right; null when there is none. */
function splitTerm(term: string): { field: string; op: (typeof TERM_OPERATORS)[number]; rhs: string } | null {
  for (let i = 0; i < term.length; i++) {
    const op = TERM_OPERATORS.find((o) => term.startsWith(o, i));
    if (op) return { field: term.slice(0, i), op, rhs: term.slice(i + op.length) };
  }
  return null;
}

class TermsSelector implements FieldSelector {
  readonly requirements: readonly FieldRequirement[];

  constructor(requirements: readonly FieldRequirement[]) {
    this.requirements = Object.freeze(requirements.map((r) => Object.freeze({ ...r })));
  }

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(fieldValue: (field: string) => string | undefined): boolean {
    return this.requirements.every((r) => ((fieldValue(r.field) ?? '') === r.value) === (r.operator === '='));
  }

  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

/**
 * Parses field selector text; the empty string selects everything. Terms come out sorted by their text, as upstream
 * sorts them, and empty terms (`a=b,,c=d`, and `=` with neither field nor value) are dropped. Throws SelectorError.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(text).sort(compareUtf8)) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw new SelectorError(`invalid selector: '${text}'; can't understand '${term}'`);
    const value = unescapeFieldValue(parts.rhs);
    // Upstream's identity transform turns a term with neither field nor value into "everything", which vanishes.
    if (parts.field === '' && value === '') continue;
    requirements.push({ field: parts.field, operator: parts.op === '!=' ? '!=' : '=', value });
  }
  return new TermsSelector(requirements);
}

/** Matches every object. */
export const everythingFieldSelector: FieldSelector = new TermsSelector([]);
