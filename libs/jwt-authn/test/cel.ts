// The CEL compiler the tests hand to authenticators (the API server gets programs from @cl/config).
import { compileExpression } from '@cl/cel';
import type { CelCompiler } from '../src';

export const compile: CelCompiler = (expression, variable) => compileExpression(variable, expression);
