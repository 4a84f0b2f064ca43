// Table cells shared by the kinds' printers: ages and counts as kubectl shows them.
import { humanDuration, type KubeObject, type TableColumnDefinition } from '@cl/apimachinery';

export const column = (name: string, type: string, description: string, priority = 0, format = ''): TableColumnDefinition => ({ name, type, format, description, priority });

export const AGE = column('Age', 'string', 'Time since the object was created (metadata.creationTimestamp).');

/** `5m`, `<unknown>` for an object without a creation time (upstream's translateTimestampSince). */
export function age(time: string | null | undefined, now: number): string {
  if (!time) return '<unknown>';
  return humanDuration(now - Date.parse(time));
}

export const ageOf = (o: KubeObject, now: number) => age(o.metadata?.creationTimestamp, now);

export function countKeys(...maps: Array<Record<string, unknown> | undefined>): number {
  return maps.reduce((n, m) => n + (m ? Object.keys(m).length : 0), 0);
}
