// Compile errors in cel-go's `Issues.String()` layout, which Kubernetes embeds in field errors:
// `ERROR: <input>:L:C: <message>\n | <source line>\n | <dots>^`.

export class CelCompileError extends Error {
  constructor(
    readonly expression: string,
    /** The cel-go style issue text. */
    readonly issues: string,
    /** 1-based line and column of the problem. */
    readonly line: number,
    readonly column: number,
  ) {
    super(issues);
    this.name = 'CelCompileError';
  }
}

/** An expression evaluated to an error (e.g. `no such key: email`). */
export class CelEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelEvaluationError';
  }
}

/** CEL type names as cel-go prints them: `list(string)`, `map(string, dyn)`. */
export function celGoTypeName(t: string): string {
  return t.replace(/</g, '(').replace(/>/g, ')');
}

/** Maps cel-js checker wording to cel-go's where they name the same problem. */
function celGoMessage(msg: string): string {
  let m: RegExpExecArray | null;
  if ((m = /^Unknown variable: (.+)$/.exec(msg))) return `undeclared reference to '${m[1]}' (in container '')`;
  if ((m = /^No such key: (.+)$/.exec(msg))) return `undefined field '${m[1]}'`;
  if ((m = /^no such overload: (.+?) ([-+*/%<>=!]=?|&&|\|\||in) (.+)$/.exec(msg))) {
    return `found no matching overload for '_${m[2]}_' applied to '(${celGoTypeName(m[1]!)}, ${celGoTypeName(m[3]!)})'`;
  }
  return msg;
}

export function toCompileError(expression: string, err: unknown): CelCompileError {
  const e = err as { message?: string; range?: { start: number } };
  const raw = String(e?.message ?? err);
  // cel-js appends its own source excerpt after a blank line; keep only the message
  const message = celGoMessage(raw.split('\n\n')[0]!.trim());
  const offset = Math.max(0, Math.min(e?.range?.start ?? 0, expression.length));
  const before = expression.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = Array.from(expression.slice(lineStart, offset)).length + 1;
  const srcLine = expression.split('\n')[line - 1] ?? '';
  const issues = `ERROR: <input>:${line}:${column}: ${message}\n | ${srcLine}\n | ${'.'.repeat(column - 1)}^`;
  return new CelCompileError(expression, issues, line, column);
}

export function toEvaluationError(err: unknown): CelEvaluationError {
  const raw = String((err as Error)?.message ?? err).split('\n\n')[0]!.trim();
  return new CelEvaluationError(raw.replace(/^No such key: /, 'no such key: '));
}
