// Field management of one kind (upstream's FieldManager over structured-merge-diff's Updater): every write
// records who set which fields in metadata.managedFields; an apply merges a configuration into the live object,
// drops what its manager applied before and no longer applies, and refuses to change fields other managers own
// unless forced. Decisions only: the caller reads and writes the store.
import { fieldKey, FieldSet } from './field-set';
import { ApplyConflictError, type Conflict } from './conflicts';
import { capUpdateManagers, decodeManagedFields, encodeManagedFields, identity, isReset, ManagedFieldsError, type Managed, type Writer } from './managed-fields';
import { isObject, type Schema } from './shape';
import { jsonEqual } from '@cl/apimachinery';
import { compare, merge, MergeError, removeFields, toFieldSet, withNamedFieldsAsMembers } from './typed';

type Obj = Record<string, unknown> & { metadata?: Record<string, unknown> };

export interface FieldManagerOptions {
  /** The kind's schema (JSON Schema with Kubernetes' list and map extensions). */
  schema: Schema;
  /** The version the entries are recorded in (`v1`, `apps/v1`). */
  apiVersion: string;
  /**
   * Top-level fields a write through each subresource ('' is the main resource) does not own, as upstream's
   * reset fields: `{ '': ['status'], status: ['spec'] }` for a kind with a status subresource.
   */
  ignoredFields?: Readonly<Record<string, readonly string[]>>;
  /** The time entries are stamped with (tests fix it). */
  now?: () => string;
}

/** Fields no manager owns: identity and server-set metadata (upstream's stripMetaManager). */
const STRIPPED_METADATA = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map(fieldKey);

/** `set` without the stripped fields; touches only the top two levels (copied, since sets may share nodes). */
function withoutStripped(set: FieldSet): FieldSet {
  if (!set.children) return set;
  const out = new FieldSet();
  out.member = set.member;
  out.children = new Map(set.children);
  out.children.delete('f:apiVersion');
  out.children.delete('f:kind');
  const meta = set.children.get('f:metadata');
  if (meta) {
    const m = new FieldSet();
    if (meta.children) {
      m.children = new Map(meta.children);
      for (const k of STRIPPED_METADATA) m.children.delete(k);
    }
    if (m.empty) out.children.delete('f:metadata');
    else out.children.set('f:metadata', m);
  }
  return out;
}

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

export class InvalidApplyError extends Error {}

export class FieldManager {
  private readonly now: () => string;
  /** The state a create is compared against: the kind's top-level structs, present and empty (Go's zero object). */
  private readonly zero: Obj;

  constructor(private readonly opts: FieldManagerOptions) {
    this.now = opts.now ?? secondsNow;
    const props = (opts.schema.properties ?? {}) as Record<string, Schema>;
    this.zero = {};
    for (const k of ['metadata', 'spec', 'status']) if (props[k] && (props[k].type === 'object' || props[k].properties)) this.zero[k] = {};
  }

  /**
   * A create, update or patch by `writer`: `next` gets its managedFields (the client's own when it sent a valid
   * non-empty list, a reset for `[]` / `[{}]`, else the live object's) updated with the fields this write
   * changed. A failure here never fails the write: the object is then stored without managedFields, as upstream.
   */
  update(live: Obj | null, next: Obj, writer: Writer): void {
    const meta = (next.metadata ??= {});
    try {
      const managed = this.startingEntries(live, next, !!writer.subresource);
      delete meta.managedFields;
      const ignored = this.opts.ignoredFields?.[writer.subresource ?? ''] ?? [];
      const c = compare(this.opts.schema, this.view(live), next);
      const changed = withoutTopLevel(c.modified.union(c.added), ignored);
      const removed = withoutTopLevel(c.removed, ignored);
      for (const [id, m] of managed) {
        m.set = m.set.difference(changed).difference(removed);
        if (m.set.empty) managed.delete(id);
      }
      const own = withoutStripped(changed);
      if (!own.empty) {
        const entry: Managed = { manager: writer.manager, operation: 'Update', apiVersion: this.opts.apiVersion, subresource: writer.subresource ?? '', set: own };
        const id = identity(entry);
        const previous = managed.get(id);
        entry.set = previous ? own.union(previous.set) : own;
        entry.time = this.now();
        managed.set(id, entry);
      }
      capUpdateManagers(managed);
      this.store(next, managed);
    } catch (e) {
      if (!(e instanceof ManagedFieldsError || e instanceof RangeError)) throw e;
      delete meta.managedFields;
    }
  }

  /**
   * A server-side apply of `config` by `writer` to `live` (null: the object does not exist yet). Returns the new
   * object with its managedFields; throws ApplyConflictError (unless `force`) or InvalidApplyError.
   */
  apply(live: Obj | null, config: Obj, writer: Writer, force: boolean): Obj {
    const configMeta = isObject(config.metadata) ? config.metadata : undefined;
    if (configMeta && configMeta.managedFields !== undefined && configMeta.managedFields !== null) throw new InvalidApplyError('metadata.managedFields must be nil');
    let managed: Map<string, Managed>;
    try {
      managed = decodeManagedFields(live?.metadata?.managedFields);
    } catch {
      managed = new Map();
    }
    const schema = this.opts.schema;
    const liveView = this.view(live);
    let merged: Obj;
    let applied: FieldSet;
    try {
      applied = toFieldSet(schema, config, true);
      merged = merge(schema, liveView, config) as Obj;
    } catch (e) {
      if (e instanceof MergeError) throw new InvalidApplyError(`failed to merge config: ${e.message}`);
      throw e;
    }
    const ignored = this.opts.ignoredFields?.[writer.subresource ?? ''] ?? [];
    const self: Managed = { manager: writer.manager, operation: 'Apply', apiVersion: this.opts.apiVersion, subresource: writer.subresource ?? '', set: new FieldSet() };
    const id = identity(self);
    const previous = managed.get(id);
    self.set = withoutStripped(withoutTopLevel(applied, ignored));
    self.time = previous?.time;
    managed.set(id, self);
    // (Re-applying what was applied before, the usual case, drops nothing: skipped.)
    if (previous && !previous.set.difference(self.set).empty) {
      // What this manager applied before and applies no more goes, unless some manager (this one included) owns it.
      let owned = new FieldSet();
      for (const m of managed.values()) owned = owned.union(m.set);
      const dropped = withNamedFieldsAsMembers(schema, previous.set).difference(withNamedFieldsAsMembers(schema, owned));
      merged = (removeFields(schema, merged, dropped) ?? {}) as Obj;
    }
    const c = compare(schema, liveView, merged);
    const changed = withoutTopLevel(c.modified.union(c.added), ignored);
    const conflicts = this.conflicts(managed, id, changed);
    if (conflicts.length && !force) {
      const remaining = this.notAllowedByLastApplied(live, writer, conflicts);
      if (remaining.length) throw new ApplyConflictError(remaining);
    }
    for (const [other, m] of managed) {
      if (other !== id) m.set = m.set.difference(changed).difference(c.removed);
      if (m.set.empty) managed.delete(other);
    }
    const noop = jsonEqual(liveView, merged);
    if (managed.has(id) && (!noop || !self.time)) self.time = this.now();
    if (writer.manager === 'kubectl') syncLastApplied(merged, config);
    capUpdateManagers(managed);
    this.store(merged, managed);
    return merged;
  }

  private conflicts(managed: Map<string, Managed>, self: string, changed: FieldSet): Conflict[] {
    const out: Conflict[] = [];
    for (const [id, m] of managed) {
      if (id === self) continue;
      for (const path of m.set.intersection(changed).paths()) out.push({ manager: m, path });
    }
    return out;
  }

  /**
   * kubectl's switch from client-side to server-side apply (upstream's lastAppliedManager): conflicts of the
   * manager `kubectl` with fields whose live value is still what the last-applied annotation says are no conflicts.
   * Returns the conflicts that remain (all of them but for kubectl); none left means the apply goes ahead forced.
   */
  private notAllowedByLastApplied(live: Obj | null, writer: Writer, conflicts: Conflict[]): Conflict[] {
    if (writer.manager !== 'kubectl' || !live) return conflicts;
    const raw = (live.metadata?.annotations as Record<string, string> | undefined)?.[LAST_APPLIED_ANNOTATION];
    if (!raw) return conflicts;
    let lastApplied: unknown;
    try {
      lastApplied = JSON.parse(raw);
    } catch {
      return conflicts;
    }
    const c = compare(this.opts.schema, lastApplied, this.view(live));
    const allowed = toFieldSet(this.opts.schema, lastApplied).difference(c.modified);
    return conflicts.filter((x) => !allowed.has(x.path));
  }

  /** The managedFields an update starts from (upstream's decodeLiveOrNew). */
  private startingEntries(live: Obj | null, next: Obj, subresource: boolean): Map<string, Managed> {
    const fromLive = () => {
      try {
        return decodeManagedFields(live?.metadata?.managedFields);
      } catch {
        return new Map<string, Managed>();
      }
    };
    if (subresource) return fromLive();
    const sent = next.metadata?.managedFields;
    if (isReset(sent)) return new Map();
    try {
      const m = decodeManagedFields(sent);
      if (m.size) return m;
    } catch {
      // A list that does not decode is taken as not sent (clients unaware of managedFields must not lose them).
    }
    return fromLive();
  }

  /** The live object as the comparison sees it: without managedFields, or the zero object for a create. */
  private view(live: Obj | null): Obj {
    if (!live) return this.zero;
    const meta = live.metadata;
    if (!meta || meta.managedFields === undefined) return live;
    const { managedFields: _m, ...rest } = meta;
    return { ...live, metadata: rest };
  }

  private store(object: Obj, managed: Map<string, Managed>) {
    const entries = encodeManagedFields(managed.values());
    const meta = (object.metadata ??= {});
    if (entries.length) meta.managedFields = entries;
    else delete meta.managedFields;
  }
}

// metav1.Time is to the second: formatted once per second, not once per write.
let lastSecond = -1;
let lastStamp = '';
function secondsNow(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastStamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastStamp;
}

function withoutTopLevel(set: FieldSet, fields: readonly string[]): FieldSet {
  if (!fields.length || !set.children) return set;
  const out = set.copy();
  for (const f of fields) out.children?.delete(fieldKey(f));
  return out;
}

/** kubectl's server-side apply keeps an existing last-applied annotation current (upstream's lastAppliedUpdater). */
function syncLastApplied(merged: Obj, config: Obj) {
  const annotations = merged.metadata?.annotations as Record<string, string> | undefined;
  if (!annotations?.[LAST_APPLIED_ANNOTATION]) return;
  const copy = structuredClone(config);
  const a = copy.metadata?.annotations as Record<string, string> | undefined;
  if (a) {
    delete a[LAST_APPLIED_ANNOTATION];
    if (!Object.keys(a).length) delete copy.metadata!.annotations;
  }
  annotations[LAST_APPLIED_ANNOTATION] = sortedJson(copy);
}

function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}
