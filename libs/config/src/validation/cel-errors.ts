// How a CEL compile problem becomes a field error (upstream convertCELErrorToValidationError).
import { CelCompileError, CelResultTypeError, type CelProgram } from '@cl/cel';
import { fieldErrors, type FieldError, type FieldPath } from '../field';

export type Compiler = (expression: string) => CelProgram;

/**
 * Compiles `expression`; on failure pushes the field error and returns undefined.
 * `typeDetail` words the wrong-result-type message: authentication says `must evaluate to bool`,
 * authorization adds `but got <type>`.
 */
export function compileInto(
  errs: FieldError[],
  path: FieldPath,
  expression: string,
  compile: Compiler,
  typeDetail: (e: CelResultTypeError) => string = (e) => `must evaluate to ${e.expected}`,
): CelProgram | undefined {
  try {
    return compile(expression);
  } catch (e) {
    if (e instanceof CelCompileError) errs.push(fieldErrors.invalid(path, expression, `compilation failed: ${e.issues}`));
    else if (e instanceof CelResultTypeError) errs.push(fieldErrors.invalid(path, expression, typeDetail(e)));
    else errs.push(fieldErrors.internal(path, e as Error));
    return undefined;
  }
}

/** Makes the compiled program available to consumers without making it part of the document. */
export function attachProgram(target: object, program: CelProgram | undefined): void {
  Object.defineProperty(target, 'compiled', { value: program, enumerable: false, configurable: true, writable: true });
}
