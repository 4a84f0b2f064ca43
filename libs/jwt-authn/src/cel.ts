// How this library gets and runs CEL programs. Validated configuration carries compiled programs
// (`compiled`, set by @cl/config); a caller can also hand in a compiler for configs that lack them.
import { compileExpression, type CelProgram, type CelVariables } from '@cl/cel';

export type { CelProgram };
export type CelCompiler = (expression: string, variable: 'claims' | 'user') => CelProgram;

/** @cl/cel's Kubernetes environments: used for configs built by hand rather than loaded. */
export const defaultCompiler: CelCompiler = (expression, variable) => compileExpression(variable, expression);

export function programFor(
  holder: { readonly compiled?: CelProgram },
  expression: string,
  variable: 'claims' | 'user',
  compile: CelCompiler | undefined,
): CelProgram {
  if (holder.compiled) return holder.compiled;
  if (compile) return compile(expression, variable);
  throw new Error(`CEL expression ${JSON.stringify(expression)} was not compiled (validate the configuration first)`);
}

/** Runs a program; failures read `expression '<e>' resulted in error: <cause>` as upstream's mapper.eval. */
export function evaluate(p: CelProgram, vars: CelVariables): unknown {
  try {
    return p.evaluate(vars);
  } catch (e) {
    const msg = (e instanceof Error ? e.message : String(e)).replace(/^No such key/, 'no such key');
    throw new Error(`expression '${p.expression}' resulted in error: ${msg}`);
  }
}

/** upstream convertCELValueToStringList: a string, or a list of strings; `""` entries dropped. */
export function stringListResult(v: unknown): string[] | null {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return v === '' ? [] : [v];
  if (Array.isArray(v)) {
    if (!v.every((x) => typeof x === 'string')) return null;
    return (v as string[]).filter((x) => x !== '');
  }
  return null;
}
