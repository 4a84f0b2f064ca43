// meta.k8s.io/v1 Tables, what `kubectl get` prints: NAME first, the kind's own columns (its Strategy's table),
// or upstream's default NAME / CREATED AT. Each row carries the object as PartialObjectMetadata (default), the
// whole object (includeObject=Object) or nothing (None), since kubectl reads labels and namespaces from it.
import { apiErrors, type KubeObject, type Table, type TableColumnDefinition, type TableRow } from '@cl/apimachinery';
import type { Strategy } from '../strategy';
import { partialObject, partialObjectJson } from './partial-metadata';

export type IncludeObject = 'Metadata' | 'Object' | 'None';

const NAME_COLUMN: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace. Set by the client on create (or generated from generateName); cannot be updated.',
  priority: 0,
};

const CREATED_AT: TableColumnDefinition = {
  name: 'Created At',
  type: 'date',
  format: '',
  description: 'When the object was created (metadata.creationTimestamp).',
  priority: 0,
};

export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '') return 'Metadata';
  if (value === 'Metadata' || value === 'Object' || value === 'None') return value;
  throw apiErrors.badRequest(`includeObject: Unsupported value: "${value}": supported values: "Metadata", "None", "Object"`);
}

export function tableColumns(strategy: Strategy): TableColumnDefinition[] {
  if (strategy.table?.ownColumns) return strategy.table.columns;
  return [NAME_COLUMN, ...(strategy.table ? strategy.table.columns : [CREATED_AT])];
}

function rowObject(o: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return o;
  return partialObject(o);
}

export function tableRow(strategy: Strategy, o: KubeObject, include: IncludeObject, now = Date.now()): TableRow {
  const t = strategy.table;
  const cells = t?.ownColumns ? t.cells(o, now) : [o.metadata?.name ?? '', ...(t ? t.cells(o, now) : [o.metadata?.creationTimestamp ?? null])];
  const object = rowObject(o, include);
  return object === undefined ? { cells } : { cells, object };
}

export function toTable(strategy: Strategy, objects: readonly KubeObject[], resourceVersion: string | undefined, include: IncludeObject, withColumns = true, extra: { continue?: string } = {}): Table {
  const now = Date.now();
  const table: Table = {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { ...(resourceVersion ? { resourceVersion } : {}), ...(extra.continue ? { continue: extra.continue } : {}) },
    rows: objects.map((o) => tableRow(strategy, o, include, now)),
  };
  if (withColumns) table.columnDefinitions = tableColumns(strategy);
  else delete table.columnDefinitions;
  // Upstream's field order: columnDefinitions before rows.
  return withColumns ? { kind: table.kind, apiVersion: table.apiVersion, metadata: table.metadata, columnDefinitions: table.columnDefinitions, rows: table.rows } : table;
}

/** A row's object as JSON (PartialObjectMetadata's bytes are kept per object). */
function rowObjectJson(o: KubeObject, include: IncludeObject): string | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return JSON.stringify(o);
  return partialObjectJson(o);
}

/** The Table of a list as JSON text: the same document as toTable, with each row's cached object bytes spliced in. */
export function tableJson(strategy: Strategy, objects: readonly KubeObject[], resourceVersion: string | undefined, include: IncludeObject, extra: { continue?: string } = {}): string {
  const now = Date.now();
  const t = strategy.table;
  const metadata = { ...(resourceVersion ? { resourceVersion } : {}), ...(extra.continue ? { continue: extra.continue } : {}) };
  const rows = objects.map((o) => {
    const cells = t?.ownColumns ? t.cells(o, now) : [o.metadata?.name ?? '', ...(t ? t.cells(o, now) : [o.metadata?.creationTimestamp ?? null])];
    const object = rowObjectJson(o, include);
    return object === undefined ? `{"cells":${JSON.stringify(cells)}}` : `{"cells":${JSON.stringify(cells)},"object":${object}}`;
  });
  return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(metadata)},"columnDefinitions":${JSON.stringify(tableColumns(strategy))},"rows":[${rows.join(',')}]}\n`;
}
