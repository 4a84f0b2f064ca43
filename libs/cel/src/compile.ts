// Compile and type-check once (at config load); the returned program is evaluated many times.
import type { ASTNode } from '@marcbachmann/cel-js';
import { celEnvironment, type CelEnvironmentName } from './environment';
import { CelCompileError, celGoTypeName, toCompileError, toEvaluationError } from './errors';
import type { CelProgram, CelVariables } from './program';

/** The expression compiled, but its result type is not the one the field needs. */
export class CelResultTypeError extends Error {
  constructor(
    readonly expression: string,
    /** cel-go spelling, e.g. `string`, `list(string)`, `dyn`. */
    readonly outputType: string,
    readonly expected: string,
  ) {
    super(`must evaluate to ${expected} but got ${outputType}`);
    this.name = 'CelResultTypeError';
  }
}

interface CompiledProgram<T> extends CelProgram<T> {
  readonly ast: ASTNode;
}

export interface CompileOptions {
  /** Require this exact result type (`dyn` does not qualify), e.g. `bool`. */
  resultType?: 'bool';
}

/**
 * Parses and type-checks `expression` in the environment that declares `variable`.
 * Throws `CelCompileError` (syntax or type error, cel-go issue text) or `CelResultTypeError`.
 */
export function compileExpression<T = unknown>(
  variable: CelEnvironmentName,
  expression: string,
  opts: CompileOptions = {},
): CelProgram<T> {
  const env = celEnvironment(variable);
  let parsed: ReturnType<typeof env.parse>;
  try {
    parsed = env.parse(expression);
  } catch (e) {
    throw toCompileError(expression, e);
  }
  const checked = parsed.check();
  if (!checked.valid) throw toCompileError(expression, checked.error);
  const outputType = celGoTypeName(String(checked.type));
  if (opts.resultType && outputType !== opts.resultType) {
    throw new CelResultTypeError(expression, outputType, opts.resultType);
  }
  const program: CompiledProgram<T> = {
    expression,
    outputType,
    ast: parsed.ast,
    evaluate(vars: CelVariables): T {
      try {
        return parsed(vars as Record<string, unknown>) as T;
      } catch (e) {
        throw toEvaluationError(e);
      }
    },
  };
  return program;
}

/** `claimValidationRules[].expression`: over `claims`, must be bool. */
export const compileClaimValidationRule = (e: string) => compileExpression<boolean>('claims', e, { resultType: 'bool' });
/** `claimMappings.{username,groups,uid}.expression` and `extra[].valueExpression`: over `claims`, any type. */
export const compileClaimMapping = (e: string) => compileExpression('claims', e);
/** `userValidationRules[].expression`: over `user`, must be bool. */
export const compileUserValidationRule = (e: string) => compileExpression<boolean>('user', e, { resultType: 'bool' });
/** Authorization webhook `matchConditions[].expression`: over `request`, must be bool. */
export const compileMatchCondition = (e: string) => compileExpression<boolean>('request', e, { resultType: 'bool' });

/**
 * Whether the program selects `variable.field` (`claims.email`, also `claims.?email` and inside `has()`)
 * anywhere. Index syntax (`claims["email"]`) and deeper operands (`claims.x.claims.email`) do not count,
 * matching the upstream AST walk behind the `claims.email_verified` rule.
 */
export function selectsField(program: CelProgram, variable: string, field: string): boolean {
  const ast = (program as Partial<CompiledProgram<unknown>>).ast;
  if (!ast) throw new Error('selectsField needs a program from @cl/cel');
  const visit = (n: unknown): boolean => {
    if (Array.isArray(n)) return n.some(visit);
    if (!n || typeof n !== 'object' || !('op' in n)) return false;
    const node = n as { op: string; args: unknown };
    if (node.op === '.' || node.op === '.?') {
      const [operand, name] = node.args as [{ op: string; args: unknown }, string];
      if (name === field && operand.op === 'id' && operand.args === variable) return true;
    }
    return visit(node.args);
  };
  return visit(ast);
}

export { CelCompileError };
