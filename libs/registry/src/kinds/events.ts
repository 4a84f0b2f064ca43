// core/v1 events: kept for --event-ttl (each written under a store lease), selectable by the involved object,
// reason, source and type, printed as `kubectl get events` prints them (LAST SEEN first, NAME only wide).
import { fieldErrors, FieldPath, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { StorageConversion } from '../resource-store';
import type { Strategy } from '../strategy';
import { age, column } from './columns';

interface EventFields {
  involvedObject?: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  count?: number;
  type?: string;
  reportingComponent?: string;
  series?: { count?: number; lastObservedTime?: string | null };
}

const e = (o: KubeObject) => o as KubeObject & EventFields;

function validateEvent(o: KubeObject): FieldError[] {
  const ev = e(o);
  const errs: FieldError[] = [];
  const ns = o.metadata?.namespace ?? '';
  const involvedNs = ev.involvedObject?.namespace ?? '';
  // Events of cluster-scoped objects live in `default`; otherwise the namespaces must agree (upstream's legacy rule).
  if (involvedNs && involvedNs !== ns) errs.push(fieldErrors.invalid(FieldPath.root('involvedObject', 'namespace'), involvedNs, 'does not match event.namespace'));
  if (ev.type && ev.type !== 'Normal' && ev.type !== 'Warning') errs.push(fieldErrors.notSupported('type', ev.type, ['Normal', 'Warning']));
  return errs;
}

function source(ev: EventFields): string {
  const s = ev.source ?? {};
  if (!s.component && ev.reportingComponent) return ev.reportingComponent;
  return s.host ? `${s.component ?? ''}, ${s.host}` : s.component ?? '';
}

function lastSeen(ev: EventFields, now: number): string {
  const t = ev.series?.lastObservedTime ?? ev.lastTimestamp ?? ev.eventTime;
  return t ? age(t, now) : '<unknown>';
}

export function eventStrategy(ttlSeconds: number): Strategy {
  const io = (k: keyof NonNullable<EventFields['involvedObject']>) => (o: KubeObject) => e(o).involvedObject?.[k] ?? '';
  return {
    validate: validateEvent,
    allowCreateOnUpdate: true,
    ttlSeconds: () => ttlSeconds,
    fields: {
      'involvedObject.kind': io('kind'),
      'involvedObject.namespace': io('namespace'),
      'involvedObject.name': io('name'),
      'involvedObject.uid': io('uid'),
      'involvedObject.apiVersion': io('apiVersion'),
      'involvedObject.resourceVersion': io('resourceVersion'),
      'involvedObject.fieldPath': io('fieldPath'),
      reason: (o) => e(o).reason ?? '',
      reportingComponent: (o) => e(o).reportingComponent ?? '',
      source: (o) => e(o).source?.component ?? '',
      type: (o) => e(o).type ?? '',
    },
    table: {
      ownColumns: true,
      columns: [
        column('Last Seen', 'string', 'Time since the event was last seen'),
        column('Type', 'string', 'Normal or Warning'),
        column('Reason', 'string', 'Why the event happened'),
        column('Object', 'string', 'The object the event is about'),
        column('Subobject', 'string', 'The part of the object (a container)', 1),
        column('Source', 'string', 'Who reported the event', 1),
        column('Message', 'string', 'What happened'),
        column('First Seen', 'string', 'Time since the event was first seen', 1),
        column('Count', 'string', 'How often it happened', 1),
        column('Name', 'string', 'The event object name', 1, 'name'),
      ],
      cells(o, now) {
        const ev = e(o);
        const obj = `${(ev.involvedObject?.kind ?? '').toLowerCase()}/${ev.involvedObject?.name ?? ''}`;
        const first = ev.firstTimestamp ?? ev.eventTime;
        return [lastSeen(ev, now), ev.type ?? '', ev.reason ?? '', obj, ev.involvedObject?.fieldPath ?? '', source(ev), (ev.message ?? '').trim(), first ? age(first, now) : '<unknown>', ev.series?.count ?? ev.count ?? 1, o.metadata?.name ?? ''];
      },
    },
  };
}

// events.k8s.io/v1: the same stored objects (core/v1 events under /events/), renamed fields both ways.
const RENAMES: Array<[v1: string, core: string]> = [
  ['reportingController', 'reportingComponent'],
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
const SAME = ['metadata', 'eventTime', 'series', 'reportingInstance', 'action', 'reason', 'related', 'type'];

function convert(from: KubeObject, pairs: Array<[string, string]>, apiVersion: string): KubeObject {
  const out: KubeObject = { apiVersion, kind: 'Event' };
  for (const f of SAME) if (from[f] !== undefined) out[f] = from[f];
  for (const [a, b] of pairs) if (from[a] !== undefined) out[b] = from[a];
  return out;
}

export const eventsV1Storage: StorageConversion = {
  resource: 'events',
  storageVersion: { group: '', version: 'v1', kind: 'Event' },
  fromStored: (core) => convert(core, RENAMES.map(([v1, c]) => [c, v1]), 'events.k8s.io/v1'),
  toStored: (v1) => convert(v1, RENAMES, 'v1'),
};

const NOTE_LIMIT = 1024;

function validateEventV1(o: KubeObject): FieldError[] {
  const ev = o as KubeObject & { eventTime?: string | null; type?: string; reportingController?: string; reportingInstance?: string; action?: string; reason?: string; note?: string };
  const errs: FieldError[] = [];
  if (!ev.eventTime) errs.push(fieldErrors.required('eventTime'));
  if (ev.type !== 'Normal' && ev.type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${ev.type ?? ''}`));
  if (!ev.reportingController) errs.push(fieldErrors.required('reportingController'));
  if (!ev.reportingInstance) errs.push(fieldErrors.required('reportingInstance'));
  if (!ev.action) errs.push(fieldErrors.required('action'));
  if (!ev.reason) errs.push(fieldErrors.required('reason'));
  if (ev.note && Buffer.byteLength(ev.note) > NOTE_LIMIT) errs.push(fieldErrors.tooLong('note', NOTE_LIMIT));
  return errs;
}

/** The events.k8s.io/v1 view: its own required fields, the core printer's columns read through the conversion. */
export function eventV1Strategy(ttlSeconds: number): Strategy {
  const core = eventStrategy(ttlSeconds);
  const asCore = (o: KubeObject) => eventsV1Storage.toStored(o);
  return {
    validate: validateEventV1,
    allowCreateOnUpdate: true,
    ttlSeconds: () => ttlSeconds,
    fields: Object.fromEntries(Object.entries(core.fields ?? {}).map(([label, get]) => [label, (o: KubeObject) => get(asCore(o))])),
    table: { ...core.table!, cells: (o, now) => core.table!.cells(asCore(o), now) },
  };
}
