// RFC 6902 JSON Patch as kube-apiserver 1.33 applies it: gopkg.in/evanphx/json-patch.v4 at v4.12.0, plus
// the checks patch.go wraps around it (strict decoding under fieldValidation Warn/Strict, the 10000-operation
// cap, the 3 MiB copy budget). Where v4.12.0 departs from the RFC we follow v4.12.0, because that is what a
// client of kube-apiserver observes:
// - `replace` of an absent object member adds it (only a missing parent, or an array index out of range,
//   fails); `copy` from an absent object member copies null;
// - `add` with path "" fails (no whole-document add); `replace` at "" with a non-container value is a no-op;
// - `test` with value null passes when the member is absent;
// - the first pointer segment is never looked at, so "a/b" addresses the same place as "/b";
// - array indices are Go strconv.Atoi numbers: "+1" and "01" are 1, and negative indices count from the end.
// Known differences, all from upstream working on raw JSON text with lazily decoded nodes:
// - values are compared by JSON value, not by literal text, so `1` and `1.0` are equal here (not in Go);
// - a member set to null by an earlier operation of the same patch is a missing path when a later one walks
//   into it (upstream dereferences a nil node: a panic, 500);
// - `test` of two objects that differ in several members may panic or fail upstream depending on Go's map
//   order; we compare members in document order.
import { patchErrors } from './errors';
import type { FieldValidation } from './field-validation';
import { GoPanic, jsonKindWord } from './go-values';
import { cloneJson, deleteKey, getKey, hasKey, isJsonObject, setKey, type JsonObject } from './json-value';

export interface JsonPatchOptions {
  /**
   * The request's fieldValidation. Under Warn (kube-apiserver's default) and Strict, a patch whose op, path
   * or from is not a string is rejected up front with 400; under Ignore it reaches the applier (422).
   * Unknown fields in operations only produce warnings (Warn) or a later decoding error (Strict) upstream,
   * neither of which is modelled here.
   */
  fieldValidation?: FieldValidation;
  /** Copy budget in bytes (kube-apiserver's --json-patch-max-copy-bytes default, 3 MiB); 0 disables it. */
  maxCopyBytes?: number;
}

export const MAX_JSON_PATCH_OPERATIONS = 10000;
export const DEFAULT_MAX_COPY_BYTES = 3 * 1024 * 1024;

type Container = JsonObject | unknown[];
type Operation = JsonObject | null;

/** An upstream error value: returned rather than thrown so each caller can wrap it the way upstream does. */
class Failure {
  constructor(readonly message: string) {}
}

/** Thrown inside the applier; becomes a 422. */
class ApplyFailure extends Error {}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

export function applyJsonPatch(doc: unknown, patch: unknown, options: JsonPatchOptions = {}): unknown {
  // Our own copy: operation values are inserted into the result, which must not share them with the caller.
  const ownPatch = cloneJson(patch);
  if ((options.fieldValidation ?? 'Warn') !== 'Ignore') strictDecode(ownPatch);
  const operations = decodePatch(ownPatch);
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw patchErrors.tooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`);
  }
  try {
    return new Applier(cloneJson(doc), options.maxCopyBytes ?? DEFAULT_MAX_COPY_BYTES).run(operations);
  } catch (err) {
    if (err instanceof ApplyFailure) throw patchErrors.unprocessable(err.message);
    if (err instanceof GoPanic) throw patchErrors.panic(err.message);
    throw err;
  }
}

// ---- decoding -------------------------------------------------------------------------------------------

const STRING_FIELDS = ['op', 'path', 'from'] as const;

/** kjson.UnmarshalStrict into []jsonPatchOp (patch.go, fieldValidation Warn/Strict): first type error wins. */
function strictDecode(patch: unknown): void {
  const fail = (detail: string) => patchErrors.badRequest(`error decoding patch: json: cannot unmarshal ${detail}`);
  if (patch === null) return;
  if (!Array.isArray(patch)) throw fail(`${jsonKindWord(patch)} into Go value of type []handlers.jsonPatchOp`);
  for (const op of patch) {
    if (op === null) continue;
    if (!isJsonObject(op)) throw fail(`${jsonKindWord(op)} into Go value of type handlers.jsonPatchOp`);
    for (const key of Object.keys(op)) {
      const field = STRING_FIELDS.find((name) => name === key);
      const value = op[key];
      if (field && value !== null && typeof value !== 'string') {
        throw fail(`${jsonKindWord(value)} into Go struct field jsonPatchOp.${field} of type string`);
      }
    }
  }
}

/** jsonpatch.DecodePatch: an array (or null) of objects (or nulls). */
function decodePatch(patch: unknown): Operation[] {
  if (patch === null) return [];
  if (!Array.isArray(patch)) throw patchErrors.badRequest(`json: cannot unmarshal ${jsonKindWord(patch)} into Go value of type jsonpatch.Patch`);
  return patch.map((op): Operation => {
    if (op === null || isJsonObject(op)) return op;
    throw patchErrors.badRequest(`json: cannot unmarshal ${jsonKindWord(op)} into Go value of type jsonpatch.Operation`);
  });
}

// ---- operation fields (Operation.Kind/Path/From/value) -----------------------------------------------------

function opField(op: Operation, name: string): unknown {
  return op === null ? null : (getKey(op, name) ?? null);
}

function opKind(op: Operation): string {
  const kind = opField(op, 'op');
  return typeof kind === 'string' ? kind : 'unknown';
}

function opString(op: Operation, name: 'path' | 'from', missing: string): string | Failure {
  const value = opField(op, name);
  if (value === null) return new Failure(`${missing}: ${MISSING}`);
  if (typeof value !== 'string') return new Failure(`json: cannot unmarshal ${jsonKindWord(value)} into Go value of type string`);
  return value;
}

const opPath = (op: Operation) => opString(op, 'path', 'operation missing path field');
const opFrom = (op: Operation) => opString(op, 'from', 'operation, missing from field');

/** The operation's value; undefined when the member is absent (upstream: a nil node). */
function opValue(op: Operation): unknown {
  return op !== null && hasKey(op, 'value') ? op.value : undefined;
}

// ---- containers (partialDoc / partialArray) ---------------------------------------------------------------

/** Go's strconv.Atoi: optional sign, decimal digits, int64 range. */
function atoi(key: string): bigint | Failure {
  if (!/^[+-]?[0-9]+$/.test(key)) return new Failure(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  const n = BigInt(key);
  if (n > 9223372036854775807n || n < -9223372036854775808n) {
    return new Failure(`strconv.Atoi: parsing ${JSON.stringify(key)}: value out of range`);
  }
  return n;
}

const invalidIndex = (idx: bigint) => new Failure(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);

/** A negative index counts from `size`; undefined when it reaches before the start. */
function fromEnd(idx: bigint, size: number): bigint | undefined {
  if (idx >= 0n) return idx;
  return idx < -BigInt(size) ? undefined : idx + BigInt(size);
}

/** An existing element's index, for get, replace and remove. */
function existingIndex(arr: unknown[], key: string): number | Failure {
  const idx = atoi(key);
  if (idx instanceof Failure) return idx;
  const resolved = fromEnd(idx, arr.length);
  if (resolved === undefined || resolved >= BigInt(arr.length)) return invalidIndex(idx);
  return Number(resolved);
}

/** get: an object member (null when absent, as a nil node) or an array element. */
function getIn(con: Container, key: string): unknown {
  if (!Array.isArray(con)) return getKey(con, key) ?? null;
  const idx = existingIndex(con, key);
  return idx instanceof Failure ? idx : con[idx];
}

function addIn(con: Container, key: string, value: unknown): Failure | undefined {
  if (!Array.isArray(con)) {
    setKey(con, key, value);
    return undefined;
  }
  if (key === '-') {
    con.push(value);
    return undefined;
  }
  const idx = atoi(key);
  if (idx instanceof Failure) return new Failure(`value was not a proper array index: '${key}': ${idx.message}`);
  // Inserting makes room for one more element, so the bounds are those of the grown array.
  const size = con.length + 1;
  const resolved = idx >= BigInt(size) ? undefined : fromEnd(idx, size);
  if (resolved === undefined) return invalidIndex(idx);
  con.splice(Number(resolved), 0, value);
  return undefined;
}

function removeIn(con: Container, key: string): Failure | undefined {
  if (!Array.isArray(con)) {
    if (!hasKey(con, key)) return new Failure(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    deleteKey(con, key);
    return undefined;
  }
  const idx = existingIndex(con, key);
  if (idx instanceof Failure) return idx;
  con.splice(idx, 1);
  return undefined;
}

/** replace's set: only reached once get succeeded, so the index is known to be valid. */
function setIn(con: Container, key: string, value: unknown): Failure | undefined {
  if (!Array.isArray(con)) {
    setKey(con, key, value);
    return undefined;
  }
  const idx = existingIndex(con, key);
  if (idx instanceof Failure) return idx;
  con[idx] = value;
  return undefined;
}

/** RFC 6901 unescaping: "~1" then "~0", left to right, so "~01" is "~1". */
export function decodePointerToken(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/** findObject: the container holding the pointer's last token, or undefined when the parent is missing. */
function findParent(root: Container, pointer: string): { con: Container; key: string } | undefined {
  const parts = pointer.split('/');
  if (parts.length < 2) return undefined;
  let con: Container = root;
  // parts[0] is skipped unread (it is "" for a well-formed pointer).
  for (const part of parts.slice(1, -1)) {
    const next = getIn(con, decodePointerToken(part));
    if (next instanceof Failure || !(Array.isArray(next) || isJsonObject(next))) return undefined;
    con = next;
  }
  return { con, key: decodePointerToken(parts[parts.length - 1] ?? '') };
}

// ---- equality (lazyNode.equal) ------------------------------------------------------------------------------

/**
 * `doc` is a non-null value from the document, `value` the operation's value (null for JSON null). As
 * upstream, a null element met while comparing two arrays of equal length dereferences a nil node.
 */
function lazyEqual(doc: unknown, value: unknown): boolean {
  if (Array.isArray(doc)) {
    if (!Array.isArray(value) || doc.length !== value.length) return false;
    return doc.every((item, i) => {
      const other = value[i];
      if (item === null || other === null) throw new GoPanic('runtime error: invalid memory address or nil pointer dereference');
      return lazyEqual(item, other);
    });
  }
  if (isJsonObject(doc)) {
    if (!isJsonObject(value)) return false;
    const keys = Object.keys(doc);
    if (keys.length !== Object.keys(value).length) return false;
    return keys.every((key) => {
      if (!hasKey(value, key)) return false;
      const [a, b] = [doc[key], value[key]];
      if (a === null || b === null) return a === b;
      return lazyEqual(a, b);
    });
  }
  return value !== null && !Array.isArray(value) && !isJsonObject(value) && doc === value;
}

// ---- the operations -------------------------------------------------------------------------------------------

const NIL_DEREF = 'runtime error: invalid memory address or nil pointer dereference';

/** Go's byte length of json.Marshal(value): HTML-significant characters and U+2028/9 are \u-escaped. */
function goJsonSize(value: unknown): number {
  const text = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return Buffer.byteLength(text, 'utf8');
}

class Applier {
  private copied = 0;
  private root: Container;
  /** A null document decodes into a nil Go map: it reads as empty, and writing a member into it panics. */
  private readonly nilMap: JsonObject | undefined;

  constructor(
    doc: unknown,
    private readonly maxCopyBytes: number,
  ) {
    if (Array.isArray(doc) || isJsonObject(doc)) {
      this.root = doc;
    } else if (doc === null || doc === undefined) {
      this.nilMap = {};
      this.root = this.nilMap;
    } else {
      // kube-apiserver always patches an encoded object; a scalar document does not decode.
      throw new ApplyFailure(`json: cannot unmarshal ${jsonKindWord(doc)} into Go value of type jsonpatch.partialDoc`);
    }
  }

  run(operations: readonly Operation[]): unknown {
    for (const op of operations) this.apply(op);
    return this.root === this.nilMap ? null : this.root;
  }

  private writable(con: Container): Container {
    if (con === this.nilMap) throw new GoPanic('assignment to entry in nil map');
    return con;
  }

  private apply(op: Operation): void {
    const kind = opKind(op);
    switch (kind) {
      case 'add':
        return this.add(op);
      case 'remove':
        return this.remove(op);
      case 'replace':
        return this.replace(op);
      case 'move':
        return this.move(op);
      case 'test':
        return this.test(op);
      case 'copy':
        return this.copy(op);
      default:
        throw new ApplyFailure(`Unexpected kind: ${kind}`);
    }
  }

  private path(op: Operation, onError: (failure: Failure) => string): string {
    const path = opPath(op);
    if (path instanceof Failure) throw new ApplyFailure(onError(path));
    return path;
  }

  private from(op: Operation, name: string): string {
    const from = opFrom(op);
    if (from instanceof Failure) throw new ApplyFailure(`${name} operation failed to decode from: ${from.message}`);
    return from;
  }

  private parent(pointer: string, message: string): { con: Container; key: string } {
    const found = findParent(this.root, pointer);
    if (!found) throw new ApplyFailure(`${message}: ${MISSING}`);
    return found;
  }

  private add(op: Operation): void {
    const path = this.path(op, () => `add operation failed to decode path: ${MISSING}`);
    const { con, key } = this.parent(path, `add operation does not apply: doc is missing path: "${path}"`);
    const failure = addIn(this.writable(con), key, opValue(op) ?? null);
    if (failure) throw new ApplyFailure(`error in add for path: '${path}': ${failure.message}`);
  }

  private remove(op: Operation): void {
    const path = this.path(op, () => `remove operation failed to decode path: ${MISSING}`);
    const { con, key } = this.parent(path, `remove operation does not apply: doc is missing path: "${path}"`);
    const failure = removeIn(con, key);
    if (failure) throw new ApplyFailure(`error in remove for path: '${path}': ${failure.message}`);
  }

  private replace(op: Operation): void {
    const path = this.path(op, (f) => `replace operation failed to decode path: ${f.message}`);
    const value = opValue(op);
    if (path === '') {
      if (value === undefined) throw new GoPanic(NIL_DEREF);
      // Only an object or an array replaces the document; upstream silently ignores anything else.
      if (Array.isArray(value) || isJsonObject(value)) this.root = value;
      return;
    }
    const { con, key } = this.parent(path, `replace operation does not apply: doc is missing path: ${path}`);
    if (getIn(con, key) instanceof Failure) throw new ApplyFailure(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
    const failure = setIn(this.writable(con), key, value ?? null);
    if (failure) throw new ApplyFailure(`error in remove for path: '${path}': ${failure.message}`);
  }

  private move(op: Operation): void {
    const from = this.from(op, 'move');
    const source = this.parent(from, `move operation does not apply: doc is missing from path: ${from}`);
    const value = getIn(source.con, source.key);
    if (value instanceof Failure) throw new ApplyFailure(`error in move for path: '${source.key}': ${value.message}`);
    const removed = removeIn(source.con, source.key);
    if (removed) throw new ApplyFailure(`error in move for path: '${source.key}': ${removed.message}`);
    const path = this.path(op, (f) => `move operation failed to decode path: ${f.message}`);
    const target = this.parent(path, `move operation does not apply: doc is missing destination path: ${path}`);
    const added = addIn(this.writable(target.con), target.key, value);
    if (added) throw new ApplyFailure(`error in move for path: '${path}': ${added.message}`);
  }

  private test(op: Operation): void {
    const path = this.path(op, (f) => `test operation failed to decode path: ${f.message}`);
    const expected = opValue(op);
    const failed = () => new ApplyFailure(`testing value ${path} failed: test failed`);
    if (path === '') {
      if (expected === undefined) throw new GoPanic(NIL_DEREF);
      if (!lazyEqual(this.root, expected)) throw failed();
      return;
    }
    const { con, key } = this.parent(path, `test operation does not apply: is missing path: ${path}`);
    const actual = getIn(con, key);
    if (actual instanceof Failure) throw new ApplyFailure(`error in test for path: '${path}': ${actual.message}`);
    if (actual === null) {
      // An absent member and a null one are the same nil node; only a null value matches it.
      if (expected === undefined) throw new GoPanic(NIL_DEREF);
      if (expected !== null) throw failed();
      return;
    }
    if (expected === undefined || !lazyEqual(actual, expected)) throw failed();
  }

  private copy(op: Operation): void {
    const from = this.from(op, 'copy');
    const source = this.parent(from, `copy operation does not apply: doc is missing from path: ${from}`);
    const value = getIn(source.con, source.key);
    if (value instanceof Failure) throw new ApplyFailure(`error in copy for from: '${from}': ${value.message}`);
    const path = this.path(op, () => `copy operation failed to decode path: ${MISSING}`);
    const target = this.parent(path, `copy operation does not apply: doc is missing destination path: ${path}`);
    this.chargeCopy(value === null ? 0 : goJsonSize(value));
    const added = addIn(this.writable(target.con), target.key, cloneJson(value));
    if (added) throw new ApplyFailure(`error while adding value during copy: ${added.message}`);
  }

  private chargeCopy(bytes: number): void {
    this.copied += bytes;
    if (this.maxCopyBytes > 0 && this.copied > this.maxCopyBytes) {
      throw new ApplyFailure(`Unable to complete the copy, the accumulated size increase of copy is ${this.copied}, exceeding the limit ${this.maxCopyBytes}`);
    }
  }
}
