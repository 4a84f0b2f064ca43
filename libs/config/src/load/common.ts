// Shared loader plumbing: read a file with Go's error text, decode, and turn failures into ValidationError.
import { readFileSync } from 'node:fs';
import { ValidationError } from '../field';
import { DecodeError } from '../decode/document';

/** os.ReadFile's error text: `open <path>: no such file or directory`. */
export function readConfigFile(path: string): { text: string } | { error: string } {
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file or directory'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : (e as Error).message;
    return { error: code === 'EISDIR' ? `read ${path}: ${reason}` : `open ${path}: ${reason}` };
  }
}

export function fail(message: string): never {
  throw new ValidationError([new Error(message)]);
}

/** Runs a decode step; a DecodeError becomes a ValidationError carrying its (optionally wrapped) text. */
export function decodeOrFail<T>(step: () => T, wrap: (m: string) => string = (m) => m): T {
  try {
    return step();
  } catch (e) {
    if (e instanceof DecodeError) fail(wrap(e.message));
    throw e;
  }
}

/** `*apiserver.<Kind>`: how upstream's `%T` names the decoded internal object. */
export const internalTypeName = (kind: string) => `*apiserver.${kind}`;
