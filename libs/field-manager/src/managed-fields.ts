// metadata.managedFields as stored: entries keyed by who wrote (manager, operation, subresource, and for updates
// the apiVersion), decoded into field sets and encoded back in upstream's order, with upstream's cap on the
// number of Update entries.
import { FieldSet } from './field-set';

/** metav1.ManagedFieldsEntry, fields in the order Go writes them. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export type Operation = 'Apply' | 'Update';

/** One manager's fields. */
export interface Managed {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource: string;
  time?: string;
  set: FieldSet;
}

/** Who a write is on behalf of. */
export interface Writer {
  manager: string;
  /** '' for the main resource, `status`, `scale`. */
  subresource?: string;
}

/**
 * A manager's identity (upstream's BuildManagerIdentifier): appliers are one manager whatever version they apply
 * in; updaters are one per version.
 */
export function identity(m: Pick<Managed, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return `${m.operation}\0${m.manager}\0${m.subresource}\0${m.operation === 'Update' ? m.apiVersion : ''}`;
}

export class ManagedFieldsError extends Error {}

/** Stored entries as sets, keyed by identity; throws ManagedFieldsError where upstream's decoding fails. */
export function decodeManagedFields(entries: unknown): Map<string, Managed> {
  const out = new Map<string, Managed>();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  for (const [i, e] of entries.entries()) {
    if (e === null || typeof e !== 'object') throw new ManagedFieldsError(`managed fields entry ${i} is not an object`);
    const entry = e as ManagedFieldsEntry;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (!entry.apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
    if (!entry.fieldsType) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (entry.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(entry.fieldsType)} in managed fields entry ${i}`);
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(entry.fieldsV1 ?? {});
    } catch (err) {
      throw new ManagedFieldsError(`error decoding versioned set from managed fields entry ${i}: ${(err as Error).message}`);
    }
    const m: Managed = { manager: entry.manager ?? '', operation: entry.operation, apiVersion: entry.apiVersion, subresource: entry.subresource ?? '', time: entry.time, set };
    const id = identity(m);
    if (out.has(id)) throw new ManagedFieldsError(`duplicate entry for manager ${JSON.stringify(id.split('\0').slice(0, 2).join(' '))}`);
    out.set(id, m);
  }
  return out;
}

/** A request's managedFields that ask for a reset (an empty list, or one empty entry), as upstream's isResetManagedFields. */
export function isReset(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  const only = entries[0];
  return entries.length === 1 && only !== null && typeof only === 'object' && Object.keys(only).length === 0;
}

/** Entries as stored: Apply before Update, then by time, manager, apiVersion and subresource (upstream's sort). */
export function encodeManagedFields(managed: Iterable<Managed>): ManagedFieldsEntry[] {
  const list = [...managed].filter((m) => !m.set.empty);
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  list.sort(
    (a, b) =>
      cmp(a.operation, b.operation) ||
      seconds(a.time) - seconds(b.time) ||
      cmp(a.manager, b.manager) ||
      cmp(a.apiVersion, b.apiVersion) ||
      cmp(a.subresource, b.subresource),
  );
  return list.map((m) => {
    const e: ManagedFieldsEntry = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion };
    if (m.time) e.time = m.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = m.set.toFieldsV1();
    if (m.subresource) e.subresource = m.subresource;
    if (!m.manager) delete e.manager;
    return e;
  });
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES = 'ancient-changes';

/**
 * More than 10 Update entries: the oldest are merged, per version, into one `ancient-changes` entry until 10 are
 * left (upstream's capManagersManager), so a busy object's metadata stays bounded.
 */
export function capUpdateManagers(managed: Map<string, Managed>, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managed.entries()].filter(([, m]) => m.operation === 'Update');
  if (updaters.length <= max) return;
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  updaters.sort(([ia, a], [ib, b]) => seconds(a.time) - seconds(b.time) || cmp(ia, ib));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const [id, m] = updaters[i];
    const bucketId = identity({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: m.apiVersion, subresource: '' });
    const first = firstOfVersion.get(m.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(m.apiVersion, id);
      continue;
    }
    let bucket = managed.get(bucketId);
    if (!bucket) {
      const firstEntry = managed.get(first)!;
      managed.delete(first);
      bucket = { ...firstEntry, manager: ANCIENT_CHANGES, subresource: '' };
      managed.set(bucketId, bucket);
    }
    bucket.set = m.set.union(bucket.set);
    // The bucket carries the time of the newest update merged into it.
    bucket.time = m.time;
    managed.delete(id);
    length--;
  }
}
